"""Model outages with the scripted model: the planner's failure is not the run's error."""

from __future__ import annotations

import httpx
import openai

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.llm import ScriptedChatModel, StaticModelProvider

TASK = "the total in billing.py for 10 items should include the discount"  # no fast path: the planner is asked


def error_429(code: str, message: str) -> openai.RateLimitError:
    """The error openai raises for an HTTP 429 with this error code and message."""
    body = {"message": message, "code": code}
    response = httpx.Response(429, json={"error": body},
                              request=httpx.Request("POST", "http://127.0.0.1/v1/chat/completions"))
    return openai.RateLimitError(f"Error code: 429 - {message}", response=response, body=body)


def _run(repo, actor, planner, **config):
    config = {"critic": False, "retry_base_delay_s": 0, "max_retries": 1, **config}
    models = {"actor": ScriptedChatModel(replies=actor), "planner": ScriptedChatModel(replies=planner)}
    return run(RunRequest(task=TASK, repo=repo), models=StaticModelProvider(models),
               config=CodurConfig(**config)), models


def test_a_planner_down_does_not_hold_back_mutation_repair(invoice_repo):
    result, models = _run(invoice_repo, [], [RuntimeError("Connection error.")] * 2, repair_workers=1,
                          mutation_time_box_s=30)
    assert result.status is RunStatus.SUCCESS and result.reason == "verified"
    assert result.nodes[:4] == ["initialize", "observe", "plan", "patch"]
    # failing tests and mutation search enabled: the first plan asks no model
    assert models["planner"].calls == [] and models["actor"].calls == []


def test_agent_and_planner_down_ends_model_unavailable(invoice_repo):
    down = [RuntimeError("500 Internal Server Error")] * 2
    result, models = _run(invoice_repo, down, [RuntimeError("500")] * 4, repair=False)
    assert result.status is RunStatus.FAILED and result.reason.startswith("model_unavailable (RuntimeError: 500")
    assert result.nodes[-2:] == ["plan", "done"] and result.diff == ""
    assert len(models["actor"].calls) == 2  # one retry by the model-call policy
    assert len(models["planner"].calls) == 4  # the planner's calls are retried the same way


def test_insufficient_quota_ends_quota_exhausted_without_asking_again(invoice_repo):
    quota = error_429("insufficient_quota", "You exceeded your current quota")
    result, models = _run(invoice_repo, [quota], ['{"task_type": "code_fix", "steps": ["fix"]}'], repair=False)
    assert result.status is RunStatus.QUOTA_EXHAUSTED, result.reason
    assert len(models["actor"].calls) == 1 and len(models["planner"].calls) == 1  # not retried, no replan call


def test_rate_limited_agent_and_planner_end_rate_limited(invoice_repo):
    limited = error_429("rate_limit_exceeded", "Rate limit reached")
    result, _ = _run(invoice_repo, [limited], ['{"task_type": "code_fix", "steps": ["fix"]}', limited], repair=False)
    assert result.status is RunStatus.RATE_LIMITED and "Rate limit reached" in result.reason

