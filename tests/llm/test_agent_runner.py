"""Every AgentRunner rule, with a fake agent, a recording sleep and a fake clock (no real sleeps)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import httpx
import openai
import pytest

from codur.core.ports import AgentResult, AgentTask, QuotaState, QuotaStatus
from codur.llm.agent_runner import AgentRunner

FAIL = AgentResult(success=False, output="boom\nsecond line", exit_code=1)
OK = AgentResult(success=True, output="done")


@dataclass
class FakeAgent:
    """Plays a list of outcomes: AgentResult values are returned, exceptions raised."""

    outcomes: list
    name: str = "fake"
    plans: list = field(default_factory=list)

    def run(self, plan: AgentTask) -> AgentResult:
        self.plans.append(plan)
        outcome = self.outcomes[min(len(self.plans), len(self.outcomes)) - 1]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        self.now += 1.5
        return self.now


def make(outcomes, **kwargs):
    agent = FakeAgent(list(outcomes))
    delays: list[float] = []
    executor = AgentRunner(agent, sleep=delays.append, clock=FakeClock(), **kwargs)
    return executor, agent, delays


@pytest.fixture
def plan(tmp_path):
    return AgentTask(prompt="fix the bug\n" + "x" * 5000, repo_root=tmp_path)


def test_dry_run_calls_nothing_and_writes_nothing(plan, caplog):
    executor, agent, delays = make([OK])
    with caplog.at_level(logging.INFO, logger="codur.llm.agent_runner"):
        result = executor.execute(plan, dry_run=True)
    assert result == AgentResult(success=True, output="(dry run)", dry_run=True, attempts=0)
    assert agent.plans == [] and delays == []
    assert list(plan.repo_root.iterdir()) == []
    [record] = caplog.records
    assert record.levelno == logging.INFO
    assert plan.prompt[:3000] in record.getMessage()
    assert plan.prompt[:3001] not in record.getMessage()


def test_prompt_is_saved(plan):
    executor, _, _ = make([OK])
    executor.execute(plan)
    saved = plan.repo_root / ".codur" / "current_prompt.txt"
    assert saved.read_text(encoding="utf-8") == plan.prompt
    assert [p.name for p in saved.parent.iterdir()] == ["current_prompt.txt"]  # no temp left


def test_prompt_file_is_replaced_on_the_next_run(plan):
    executor, _, _ = make([OK])
    executor.execute(plan)
    executor.execute(AgentTask(prompt="second", repo_root=plan.repo_root))
    assert (plan.repo_root / ".codur" / "current_prompt.txt").read_text() == "second"


def test_success_first_try(plan):
    executor, agent, delays = make([OK])
    result = executor.execute(plan)
    assert result.success and result.output == "done"
    assert result.attempts == 1 and delays == []
    assert agent.plans == [plan]
    assert result.duration_s == pytest.approx(1.5)


def test_retry_then_success(plan):
    executor, _, delays = make([FAIL, OK])
    result = executor.execute(plan)
    assert result.success and result.attempts == 2
    assert delays == [2.0]


def test_exhausted_retries_return_the_last_result(plan):
    last = AgentResult(success=False, output="third", exit_code=3, duration_s=0.1)
    executor, agent, delays = make([FAIL, FAIL, last])
    result = executor.execute(plan)
    assert len(agent.plans) == 3
    assert delays == [2.0, 4.0]
    assert result.output == "third" and result.exit_code == 3
    assert result.attempts == 3
    assert result.duration_s == pytest.approx(1.5)  # the AgentRunner's total, not the agent's


def test_delay_is_capped_at_30_seconds(plan):
    executor, _, delays = make([FAIL], max_retries=3, base_delay=10.0)
    executor.execute(plan)
    assert delays == [10.0, 20.0, 30.0]


def test_max_retries_zero_means_one_call(plan):
    executor, agent, delays = make([FAIL], max_retries=0)
    assert executor.execute(plan).attempts == 1
    assert len(agent.plans) == 1 and delays == []


def test_no_retry_when_command_not_found(plan):
    missing = AgentResult(success=False, output="command not found: x", exit_code=-1)
    executor, agent, delays = make([missing, OK])
    result = executor.execute(plan)
    assert result.exit_code == -1 and result.attempts == 1
    assert len(agent.plans) == 1 and delays == []


@pytest.mark.parametrize("status", [QuotaStatus.RATE_LIMITED, QuotaStatus.QUOTA_EXHAUSTED])
def test_no_retry_on_quota(plan, status):
    quota = QuotaState(status=status, retry_after_seconds=12.0, message="slow down")
    limited = AgentResult(success=False, output="429", exit_code=1, quota_state=quota)
    executor, agent, delays = make([limited, OK])
    result = executor.execute(plan)
    assert not result.success and result.attempts == 1
    assert result.quota_state is quota
    assert len(agent.plans) == 1 and delays == []


def test_keyboard_interrupt_propagates_after_one_call(plan):
    executor, agent, delays = make([KeyboardInterrupt(), OK])
    with pytest.raises(KeyboardInterrupt):
        executor.execute(plan)
    assert len(agent.plans) == 1 and delays == []


def test_exception_is_a_failed_attempt_and_is_retried(plan):
    executor, agent, delays = make([ValueError("bad reply"), OK])
    assert executor.execute(plan).success
    assert len(agent.plans) == 2 and delays == [2.0]


def test_exception_result_shape(plan):
    executor, _, _ = make([ValueError("bad reply")], max_retries=0)
    result = executor.execute(plan)
    assert (result.success, result.output, result.exit_code) == (False, "ValueError: bad reply", 1)
    assert result.quota_state.status is QuotaStatus.OK


@pytest.mark.parametrize(
    "error, status",
    [
        (
            {"message": "Rate limit reached", "code": "rate_limit_exceeded"},
            QuotaStatus.RATE_LIMITED,
        ),
        (
            {"message": "You exceeded your current quota", "code": "insufficient_quota"},
            QuotaStatus.QUOTA_EXHAUSTED,
        ),
    ],
)
def test_openai_rate_limit_error_is_not_retried(plan, error, status):
    response = httpx.Response(
        429,
        headers={"retry-after": "9"},
        json={"error": error},
        request=httpx.Request("POST", "http://x"),
    )
    exc = openai.RateLimitError("Error code: 429", response=response, body=error)
    executor, agent, delays = make([exc, OK])
    result = executor.execute(plan)
    assert not result.success and result.attempts == 1
    assert result.output.startswith("RateLimitError: ")
    assert result.quota_state.status is status
    assert len(agent.plans) == 1 and delays == []


def test_warning_logged_per_retry(plan, caplog):
    executor, _, _ = make([FAIL, FAIL, FAIL])
    with caplog.at_level(logging.WARNING, logger="codur.llm.agent_runner"):
        executor.execute(plan)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert "fake" in warnings[0] and "attempt 1" in warnings[0] and "2.0 s" in warnings[0]
    assert "attempt 2" in warnings[1] and "4.0 s" in warnings[1]
    assert all("boom" in w and "second line" not in w for w in warnings)


def test_unwritable_repo_does_not_stop_the_run(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a dir")
    executor, _, _ = make([OK])
    with caplog.at_level(logging.WARNING, logger="codur.llm.agent_runner"):
        assert executor.execute(AgentTask(prompt="p", repo_root=blocker)).success
    assert "could not save the prompt" in caplog.text


@pytest.mark.parametrize("kwargs", [{"max_retries": -1}, {"base_delay": -0.5}])
def test_negative_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        AgentRunner(FakeAgent([OK]), **kwargs)
