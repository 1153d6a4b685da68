"""Issue 12, item 3: a model outage on the very last turn ends rate_limited / quota_exhausted,
not failed / max_turns (the same end a replan with the model down gets)."""

from __future__ import annotations

import pytest

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.llm import ScriptedChatModel, StaticModelProvider

from ..graph.test_model_outage import TASK, error_429


@pytest.mark.parametrize(("code", "message", "status"), [
    ("rate_limit_exceeded", "Rate limit reached", RunStatus.RATE_LIMITED),
    ("insufficient_quota", "You exceeded your current quota", RunStatus.QUOTA_EXHAUSTED),
])
def test_an_outage_on_the_last_turn_ends_with_the_outage(invoice_repo, code, message, status) -> None:
    models = {"actor": ScriptedChatModel(replies=[error_429(code, message)]),
              "planner": ScriptedChatModel(replies=['{"task_type": "code_fix", "steps": ["fix"]}'])}
    config = CodurConfig(critic=False, repair=False, retry_base_delay_s=0, max_retries=1, max_turns=1)
    result = run(RunRequest(task=TASK, repo=invoice_repo), models=StaticModelProvider(models), config=config)
    assert result.status is status, result.reason
    assert message in result.reason and result.nodes[-2:] == ["review", "done"]
    assert len(models["actor"].calls) == 1


def test_an_agent_that_fails_otherwise_on_the_last_turn_still_ends_max_turns(invoice_repo) -> None:
    models = {"actor": ScriptedChatModel(replies=["I could not find the bug."]),
              "planner": ScriptedChatModel(replies=['{"task_type": "code_fix", "steps": ["fix"]}'])}
    config = CodurConfig(critic=False, repair=False, retry_base_delay_s=0, max_turns=1)
    result = run(RunRequest(task=TASK, repo=invoice_repo), models=StaticModelProvider(models), config=config)
    assert result.status is RunStatus.FAILED and result.reason == "max_turns"
