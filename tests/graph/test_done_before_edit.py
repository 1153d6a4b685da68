"""A first `done` before any edit, in a turn that may edit, is answered instead of ending the turn."""

from __future__ import annotations

import json
from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.graph.execution.agent_executor import NO_EDIT_NOTE
from codur.llm import ScriptedChatModel, StaticModelProvider

FIX_OLD = "if quantity > BULK_THRESHOLD:"
FIX_NEW = "if quantity >= BULK_THRESHOLD:"


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def agent_run(repo: Path, replies: list[str], task: str = "make the failing tests pass"):
    actor = ScriptedChatModel(replies=replies)
    config = CodurConfig(fixers=["agent"], critic=False, max_turns=1, retry_base_delay_s=0)
    return run(RunRequest(task=task, repo=repo), models=StaticModelProvider({"actor": actor}), config=config), actor


def test_done_without_an_edit_is_answered_and_the_turn_goes_on_to_the_fix(invoice_repo: Path):
    replies = [call("validate_python_syntax", path="billing.py"), call("done", summary="The file compiles."),
               call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW), call("done", summary="Fixed.")]
    result, actor = agent_run(invoice_repo, replies)
    assert result.status is RunStatus.SUCCESS, result.reason
    assert NO_EDIT_NOTE in actor.calls[2][-1].content  # the third call saw the answer to the early done
    assert len(actor.calls) == 4 and FIX_NEW in (invoice_repo / "billing.py").read_text()


def test_a_second_done_without_an_edit_ends_the_turn(invoice_repo: Path):
    replies = [call("done", summary="Nothing to change."), call("done", summary="Really nothing."), "never played"]
    result, actor = agent_run(invoice_repo, replies)
    assert result.status is RunStatus.FAILED and len(actor.calls) == 2 and actor.remaining == 1


def test_a_question_is_never_nudged(invoice_repo: Path):
    replies = [call("done", summary="bulk_discount_percent gives 10% from 10 items."), "never played"]
    result, actor = agent_run(invoice_repo, replies, task="what does bulk_discount_percent return? explain")
    assert len(actor.calls) == 1 and all(NO_EDIT_NOTE not in m.content for m in actor.calls[0])
