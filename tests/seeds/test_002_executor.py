"""Specification 002, "Executor — v0.6 Spec", requirement by requirement, through its own names.

A scripted agent (the document's injected ``AgentPort``) plays its outcomes; the backoff's
sleep is recorded, not slept, except in the example run as written.
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from codur import AgentPort, ExecutionResult, Executor, IterationPlan, QuotaState, QuotaStatus
from tests.seeds.conftest import python_blocks, run_example

FAILED = ExecutionResult(success=False, output="agent crashed", exit_code=1)
DONE = ExecutionResult(success=True, output="fixed")


@dataclass
class ScriptedAgent:
    """An AgentPort that returns (or raises) its outcomes in turn; the last one repeats."""

    outcomes: list
    name: str = "scripted"
    plans: list = field(default_factory=list)

    def run(self, plan: IterationPlan) -> ExecutionResult:
        self.plans.append(plan)
        outcome = self.outcomes[min(len(self.plans), len(self.outcomes)) - 1]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


def executor(outcomes, **kwargs) -> tuple[Executor, ScriptedAgent, list[float]]:
    agent = ScriptedAgent(list(outcomes))
    delays: list[float] = []
    return Executor(agent, sleep=delays.append, **kwargs), agent, delays


@pytest.fixture
def plan(tmp_path: Path) -> IterationPlan:
    return IterationPlan(prompt="fix the failing test\n" + "p" * 4000, repo_root=tmp_path)


def test_the_names_import_from_codur_and_the_agent_is_an_agent_port():
    from codur.core.ports import ExecutionResult as ports_result
    from codur.core.ports import IterationPlan as ports_plan
    from codur.llm.agent_runner import Executor as runner

    assert (Executor, IterationPlan, ExecutionResult) == (runner, ports_plan, ports_result)
    assert isinstance(ScriptedAgent([DONE]), AgentPort)


def test_constructor_and_public_method_are_as_specified():
    """Constructor: ``Executor(agent: AgentPort, *, max_retries: int = 2, base_delay: float = 2.0)``;
    method: ``execute(self, plan: IterationPlan, dry_run: bool = False) -> ExecutionResult``."""
    blocks = python_blocks("002")
    assert blocks[0].strip() == "Executor(agent: AgentPort, *, max_retries: int = 2, base_delay: float = 2.0)"
    init = inspect.signature(Executor.__init__).parameters
    assert list(init)[:2] == ["self", "agent"] and init["agent"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    for name, default in (("max_retries", 2), ("base_delay", 2.0)):
        assert init[name].kind is inspect.Parameter.KEYWORD_ONLY and init[name].default == default
    assert "def execute(self, plan: IterationPlan, dry_run: bool = False) -> ExecutionResult" in blocks[1]
    execute = inspect.signature(Executor.execute)
    assert list(execute.parameters) == ["self", "plan", "dry_run"]
    assert execute.parameters["dry_run"].default is False
    assert execute.return_annotation in ("ExecutionResult", ExecutionResult)


def test_accept_an_iteration_plan_and_a_dry_run_flag(plan):
    runner, agent, _ = executor([DONE])
    assert runner.execute(plan).output == "fixed" and agent.plans == [plan]
    assert runner.execute(plan, dry_run=True).dry_run and len(agent.plans) == 1


def test_dry_run_logs_the_prompt_truncated_to_3000_chars_and_does_not_invoke_the_agent(plan, caplog):
    runner, agent, delays = executor([DONE])
    with caplog.at_level(logging.INFO, logger="codur.llm.agent_runner"):
        result = runner.execute(plan, dry_run=True)
    assert result.success and result.output == "(dry run)" and result.dry_run
    assert agent.plans == [] and delays == []
    logged = caplog.records[-1].getMessage()
    assert plan.prompt[:3000] in logged and plan.prompt[:3001] not in logged


def test_normal_mode_saves_the_prompt_in_the_codur_folder(plan):
    """Deviation: ``.codur/current_prompt.txt``, not ``.anima/current_prompt.txt`` (codur's one folder)."""
    executor([DONE])[0].execute(plan)
    assert (plan.repo_root / ".codur" / "current_prompt.txt").read_text() == plan.prompt
    assert not (plan.repo_root / ".anima").exists()


def test_normal_mode_delegates_execution_to_the_injected_agent_port(plan):
    runner, agent, _ = executor([DONE])
    result = runner.execute(plan)
    assert agent.plans == [plan] and result.output == "fixed" and result.attempts == 1


def test_transient_failure_is_retried_up_to_max_retries_with_exponential_backoff(plan):
    runner, agent, delays = executor([FAILED], max_retries=2)
    result = runner.execute(plan)
    assert len(agent.plans) == 3 and result.attempts == 3 and not result.success
    assert delays == [2.0, 4.0]


def test_an_agent_error_is_a_transient_failure_and_a_later_success_ends_the_retries(plan):
    runner, agent, delays = executor([RuntimeError("connection reset"), DONE])
    result = runner.execute(plan)
    assert result.success and len(agent.plans) == 2 and delays == [2.0]


def test_delay_between_retries_is_min_base_delay_times_2_to_the_attempt_and_30(plan):
    runner, _, delays = executor([FAILED], max_retries=6, base_delay=3.0)
    runner.execute(plan)
    assert delays == [min(3.0 * 2**attempt, 30.0) for attempt in range(6)] == [3.0, 6.0, 12.0, 24.0, 30.0, 30.0]


@pytest.mark.parametrize("status", [QuotaStatus.RATE_LIMITED, QuotaStatus.QUOTA_EXHAUSTED])
def test_skip_retries_when_the_quota_state_is_rate_limited_or_quota_exhausted(plan, status):
    limited = ExecutionResult(success=False, exit_code=1, output="429",
                              quota_state=QuotaState(status=status, retry_after_seconds=3600.0, message="slow down"))
    runner, agent, delays = executor([limited, DONE])
    result = runner.execute(plan)
    assert len(agent.plans) == 1 and delays == []
    assert result.quota_state == limited.quota_state  # propagated unchanged, for the kernel to inspect


def test_exit_code_minus_1_command_not_found_is_not_retried(plan):
    missing = ExecutionResult(success=False, exit_code=-1, output="agent command not found")
    runner, agent, delays = executor([missing, DONE])
    assert runner.execute(plan).exit_code == -1 and len(agent.plans) == 1 and delays == []


def test_only_a_failure_is_retried(plan):
    runner, agent, delays = executor([DONE, FAILED])
    assert runner.execute(plan).success and len(agent.plans) == 1 and delays == []


def test_each_retry_attempt_is_logged_at_warning_level(plan, caplog):
    runner, _, _ = executor([FAILED], max_retries=2)
    with caplog.at_level(logging.WARNING, logger="codur.llm.agent_runner"):
        runner.execute(plan)
    retries = [r for r in caplog.records if r.levelno == logging.WARNING and "retrying" in r.getMessage()]
    assert len(retries) == 2


def test_the_result_of_the_last_attempt_is_returned(plan):
    last = ExecutionResult(success=False, output="third failure", exit_code=3)
    runner, _, _ = executor([FAILED, FAILED, last], max_retries=2)
    result = runner.execute(plan)
    assert (result.output, result.exit_code, result.attempts) == ("third failure", 3, 3)


def test_the_quota_state_of_a_detected_signal_is_returned_unchanged(plan):
    state = QuotaState(status=QuotaStatus.OK, retry_after_seconds=12.0, message="x-ratelimit-remaining: 1")
    runner, _, _ = executor([ExecutionResult(success=True, output="ok", quota_state=state)])
    assert runner.execute(plan).quota_state is state


def test_keyboard_interrupt_is_re_raised_without_retry(plan):
    runner, agent, delays = executor([KeyboardInterrupt(), DONE])
    with pytest.raises(KeyboardInterrupt):
        runner.execute(plan)
    assert len(agent.plans) == 1 and delays == []


def test_the_specified_example_runs_in_a_fresh_folder(tmp_path: Path):
    """The document's constructor and method, as a user writes them against codur's names."""
    program = '''
from pathlib import Path
from codur import ExecutionResult, Executor, IterationPlan

class Flaky:
    name = "flaky"
    calls = 0
    def run(self, plan):
        Flaky.calls += 1
        ok = Flaky.calls > 1
        return ExecutionResult(success=ok, output=f"call {Flaky.calls}", exit_code=0 if ok else 1)

result = Executor(Flaky(), max_retries=2, base_delay=0.01).execute(IterationPlan(prompt="go", repo_root=Path(".")))
print(result.success, result.output, result.attempts, Path(".codur/current_prompt.txt").read_text())
'''
    done = run_example(program, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "call", "2", "2", "go"]
