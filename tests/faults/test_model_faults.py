"""Real codur runs (langchain-openai over HTTP) against a server that injects faults.

The task's wording is ambiguous on purpose ("is_adult(18) should be True"). The repo's one-line
bug is one mutation search fixes without a model: with mutation search enabled it starts
without waiting for the planner, so a model that is down or never answers changes nothing;
with the agent as the only fixer the planner is asked and meets the fault, and the run ends
with a clear status and the files untouched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codur import CodurConfig, RunRequest, RunStatus, run

TASK = "is_adult(18) should be True"
BUG, FIX = "return age > 18", "return age >= 18"


def config_for(server, **overrides) -> CodurConfig:
    settings = {"base_url": server.base_url, "model": "fault", "api_key": "test-key", "critic": False,
                "max_retries": 1, "retry_base_delay_s": 0.0, "repair_workers": 1, "mutation_time_box_s": 30.0,
                "retry_after_cap_s": 5.0, "timeout_s": 60.0, **overrides}
    return CodurConfig(**settings)


def run_against(server, repo: Path, task: str = TASK, **overrides):
    return run(RunRequest(task=task, repo=repo), config=config_for(server, **overrides))


def test_a_model_that_never_answers_does_not_hold_back_mutation_search(faults, fault_server, ages_repo: Path):
    """On main a hung model cost the planner call and two retries of 300 s each (915 s in all)
    before mutation search fixed this bug in 2 s."""
    fault_server.play(default=faults.slow(600, fault_server.stop))
    t0 = time.monotonic()
    result = run_against(fault_server, ages_repo, timeout_s=1200, max_retries=2)
    elapsed = time.monotonic() - t0
    assert result.status is RunStatus.SUCCESS and result.reason == "verified", result.reason
    assert result.nodes[:5] == ["initialize", "observe", "plan", "patch", "verify"]
    assert FIX in (ages_repo / "ages.py").read_text() and result.files_changed == ["ages.py"]
    assert elapsed < 30, elapsed  # a few seconds; one hung request alone would take 60 s
    assert fault_server.requests == []


def test_model_timeout_s_bounds_a_hung_request(faults, fault_server, ages_repo: Path, monkeypatch):
    """CODUR_MODEL_TIMEOUT_S is each request's timeout: a planner that never answers is given up
    after 1 s and its one retry, and the run (the agent alone) ends with the outage, not at its deadline."""
    fault_server.play(default=faults.slow(600, fault_server.stop))
    monkeypatch.setenv("CODUR_MODEL_TIMEOUT_S", "1")
    t0 = time.monotonic()
    result = run_against(fault_server, ages_repo, fixers=["agent"], timeout_s=600, max_retries=1)
    assert time.monotonic() - t0 < 60  # about 8 s: 1 s a request, the planner's and the agent's, with retries
    assert result.status is RunStatus.FAILED and result.reason.startswith("model_unavailable"), result.reason
    assert BUG in (ages_repo / "ages.py").read_text()


@pytest.mark.parametrize("name,fault,status,reason", [
    ("429 without Retry-After", "rate_limited", RunStatus.RATE_LIMITED, "rate_limited (OpenAIRateLimitError"),
    ("429 insufficient_quota", "insufficient_quota", RunStatus.QUOTA_EXHAUSTED, "quota_exhausted ("),
    ("500", "server_error", RunStatus.FAILED, "model_unavailable ("),
])
def test_no_model_and_no_mutation_ends_with_a_clear_status(name, fault, status, reason, faults, fault_server,
                                                         ages_repo: Path):
    """With the agent as the only fixer, a model that stays down ends the run with the
    provider's verdict (not ``error``), and the repo is untouched."""
    make = {"rate_limited": faults.rate_limited, "insufficient_quota": faults.insufficient_quota,
            "server_error": lambda: faults.status(500)}[fault]
    fault_server.play(default=make())
    result = run_against(fault_server, ages_repo, fixers=["agent"])
    assert result.status is status and result.reason.startswith(reason), result.reason
    assert result.files_changed == [] and result.diff == ""
    assert BUG in (ages_repo / "ages.py").read_text()
    assert result.nodes[-2:] == ["plan", "done"] and result.nodes.count("plan") == 2
    if fault == "insufficient_quota":  # planner (1), agent (1, not retried); the replan asks no model
        assert len(fault_server.requests) == 2


@pytest.mark.parametrize("name,fault,status,reason", [
    ("429 without Retry-After", "rate_limited", RunStatus.RATE_LIMITED, "rate_limited ("),
    ("429 insufficient_quota", "insufficient_quota", RunStatus.QUOTA_EXHAUSTED, "quota_exhausted ("),
    ("500", "server_error", RunStatus.FAILED, "model_unavailable ("),
    ("connection refused", "refused", RunStatus.FAILED, "model_unavailable ("),
])
@pytest.mark.parametrize("question", ["explain what is_adult does", "analyze ages.py for edge cases"])
def test_a_question_the_model_cannot_answer_never_succeeds(question, name, fault, status, reason, faults,
                                                           fault_server, ages_repo: Path):
    """An explanation or analysis task whose model is down ends with the outage's status: the
    error text is never taken for the answer. (The repo's tests pass: nothing to fix instead.)"""
    (ages_repo / "ages.py").write_text((ages_repo / "ages.py").read_text().replace(BUG, FIX))
    if fault == "refused":
        fault_server.close()  # nothing listens on the port any more
    else:
        fault_server.play(default={"rate_limited": faults.rate_limited, "insufficient_quota": faults.insufficient_quota,
                                   "server_error": lambda: faults.status(500)}[fault]())
    result = run_against(fault_server, ages_repo, task=question, max_retries=0)
    assert result.status is status and result.reason.startswith(reason), (result.status, result.reason)
    assert not result.ok and result.files_changed == []


def test_retry_after_is_honoured_then_the_call_succeeds(faults, fault_server, ages_repo: Path):
    # the agent alone: the planner is asked (mutation search would start without it); the reply is
    # the plan and the agent's tool call at once, so every role can read it
    fix = json.dumps({"name": "replace_in_file", "arguments": {"path": "ages.py", "old": BUG, "new": FIX}})
    reply = '{"task_type": "code_fix", "steps": ["fix"]}\n```json\n' + fix + "\n```"
    fault_server.play(faults.rate_limited("1"), default=faults.ok(reply))
    result = run_against(fault_server, ages_repo, fixers=["agent"])
    assert result.status is RunStatus.SUCCESS
    (t0, _), (t1, _) = fault_server.requests[:2]
    assert t1 - t0 >= 0.95  # waited for the Retry-After before asking again
    events = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
    assert not any(e["event_type"] == "plan.fallback" for e in events)  # the planner answered after the wait


def test_retry_after_as_an_http_date_past_the_deadline_is_not_waited(faults, fault_server, ages_repo: Path):
    from email.utils import formatdate

    # a Retry-After 60 s away (under the 120 s cap) on a 30 s run: waiting it would hold the run
    # to its deadline; not waiting ends it in about 3 s (the margin is for a loaded machine)
    fault_server.play(default=faults.rate_limited(formatdate(time.time() + 60, usegmt=True)))
    t0 = time.monotonic()
    result = run_against(fault_server, ages_repo, fixers=["agent"], retry_after_cap_s=120, timeout_s=30)
    assert time.monotonic() - t0 < 20  # never slept toward the run's deadline
    assert result.status in (RunStatus.RATE_LIMITED, RunStatus.TIMEOUT)
    assert BUG in (ages_repo / "ages.py").read_text()


def test_the_run_deadline_cuts_a_slow_model_call(faults, fault_server, ages_repo: Path):
    """A 4 s run limit and a model that answers in 60 s: the run ends near 4 s, not 60 s."""
    fault_server.play(default=faults.slow(60, fault_server.stop))
    t0 = time.monotonic()
    result = run_against(fault_server, ages_repo, fixers=["agent"], timeout_s=4, max_retries=2)
    elapsed = time.monotonic() - t0
    assert result.status is RunStatus.TIMEOUT, result.reason
    assert elapsed < 20, elapsed  # about 5 s; the margin is for a loaded machine
    assert BUG in (ages_repo / "ages.py").read_text()


def test_a_stream_cut_in_the_middle_is_a_failed_sample_not_an_error(faults, fault_server, ages_repo: Path):
    fault_server.play(default=faults.stream_cut())
    result = run_against(fault_server, ages_repo, task="make the failing tests pass", fixers=["sampling"], samples=1)
    assert result.status is RunStatus.FAILED and result.reason == "no_plausible_patch", result.reason
    assert any(r.get("stream") for _, r in fault_server.requests)
    assert BUG in (ages_repo / "ages.py").read_text() and result.diff == ""


def _cli(server, repo: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "CODUR_BASE_URL": server.base_url, "CODUR_MODEL": "fault", "CODUR_API_KEY": "k",
                   "CODUR_CRITIC": "false", "CODUR_MAX_RETRIES": "0", "CODUR_REPAIR_WORKERS": "1",
                   "CODUR_MUTATION_TIME_BOX_S": "30", **env}
    return subprocess.run([sys.executable, "-m", "codur.commands", TASK, "--repo", str(repo)], capture_output=True,
                          text=True, timeout=240, env=environment)


def test_cli_quota_exhausted_exits_1_with_the_status(faults, fault_server, ages_repo: Path):
    fault_server.play(default=faults.insufficient_quota())
    proc = _cli(fault_server, ages_repo, CODUR_FIXERS='["agent"]')
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "status: quota_exhausted" in proc.stdout and "Traceback" not in proc.stderr
    assert BUG in (ages_repo / "ages.py").read_text()


def test_cli_outage_fixed_by_mutation_exits_0(faults, fault_server, ages_repo: Path):
    fault_server.play(default=faults.status(503, "overloaded"))
    proc = _cli(fault_server, ages_repo)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "status: success" in proc.stdout
    assert FIX in (ages_repo / "ages.py").read_text()
