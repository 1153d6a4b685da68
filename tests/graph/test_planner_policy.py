"""One model-call policy for every role (issue 14, item 5): a planner error no longer ends the
run (retried, then the fast-path classification as fallback), and the critic is retried too."""

from __future__ import annotations

import json
from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.llm import ScriptedChatModel, StaticModelProvider

FIX_OLD = "if quantity > BULK_THRESHOLD:"
FIX_NEW = "if quantity >= BULK_THRESHOLD:"
TASK = "the total in billing.py for 10 items should include the discount"  # no fast path: the planner is asked
PLAN = '{"task_type": "code_fix", "agent": "coder", "steps": ["read billing.py", "fix the comparison"]}'


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def events(result, kind: str) -> list[dict]:
    lines = (result.run_dir / "trace.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["event_type"] == kind]


def scripted(**roles) -> tuple[StaticModelProvider, dict[str, ScriptedChatModel]]:
    models = {role: ScriptedChatModel(replies=replies) for role, replies in roles.items()}
    return StaticModelProvider(models), models


def test_one_planner_error_on_a_replan_is_retried_not_the_end_of_the_run(invoice_repo: Path) -> None:
    """On main: the replan's planner call raised once and the run ended failed/model_unavailable."""
    provider, models = scripted(
        planner=[PLAN, RuntimeError("500 Internal Server Error"), PLAN],
        actor=[call("read_file", path="billing.py"), "I looked.",
               call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW), "Fixed."])
    result = run(RunRequest(task=TASK, repo=invoice_repo), models=provider,
                 config=CodurConfig(critic=False, repair=False, retry_base_delay_s=0, max_retries=2))
    assert result.status is RunStatus.SUCCESS, result.reason
    assert result.nodes.count("plan") == 2 and len(models["planner"].calls) == 3
    assert events(result, "plan.fallback") == []


def test_a_malformed_planner_reply_falls_back_to_the_fast_path_with_the_event(invoice_repo: Path) -> None:
    provider, models = scripted(
        planner=["I think this is a bug in the billing code, you should fix it."],
        actor=[call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW), "Fixed."])
    result = run(RunRequest(task=TASK, repo=invoice_repo), models=provider,
                 config=CodurConfig(critic=False, repair=False, retry_base_delay_s=0))
    assert result.status is RunStatus.SUCCESS, result.reason
    fallback = events(result, "plan.fallback")
    assert len(fallback) == 1 and fallback[0]["reason"].startswith("malformed planner reply: I think this is a bug")
    assert fallback[0]["status"] == "running"  # the model is up: nothing ends the run
    # the fallback classified the task: code_fix (failing tests), with the edit tools
    assert "replace_in_file" in {t.name for t in models["actor"].bound_tools}


def test_an_unknown_task_type_is_malformed_too(invoice_repo: Path) -> None:
    provider, _ = scripted(planner=['{"task_type": "bug_hunting", "steps": []}'],
                           actor=[call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW), "ok"])
    result = run(RunRequest(task=TASK, repo=invoice_repo), models=provider,
                 config=CodurConfig(critic=False, repair=False, retry_base_delay_s=0))
    assert result.status is RunStatus.SUCCESS
    assert "bug_hunting" in events(result, "plan.fallback")[0]["reason"]


def test_the_critic_is_retried(invoice_repo: Path) -> None:
    """On main: one critic error dropped its advice ("critic unavailable")."""
    wrong = call("replace_in_file", path="billing.py", old="10% when at least", new="10% from")
    provider, models = scripted(
        actor=[wrong, "Reworded the docstring.", call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW),
               "Fixed."],
        critic=[RuntimeError("Connection error."), '{"passed": false, "strategy": "tests", "evidence": [], '
                '"reasoning": "the threshold is exclusive", "suggestions": ["use >= in the comparison"]}'])
    result = run(RunRequest(task="make the failing tests pass", repo=invoice_repo), models=provider,
                 config=CodurConfig(critic=True, repair=False, retry_base_delay_s=0, max_retries=1))
    assert result.status is RunStatus.SUCCESS
    assert len(models["critic"].calls) == 2
    retry_prompt = models["actor"].calls[2][1].content
    assert "use >= in the comparison" in retry_prompt and "critic unavailable" not in retry_prompt
