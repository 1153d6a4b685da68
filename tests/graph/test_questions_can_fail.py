"""Issue 14, item 4: a question passes only when the agent's loop ended with an answer."""

from __future__ import annotations

import json
from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.llm import ScriptedChatModel, StaticModelProvider

QUESTION = "where is the VAT rate configured?"


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def ask(repo: Path, replies: list, **config):
    actor = ScriptedChatModel(replies=replies)
    events: list[dict] = []
    config = {"critic": False, "repair": False, "max_turns": 1, **config}
    result = run(RunRequest(task=QUESTION, repo=repo, dry_run=config.pop("dry_run", False)),
                 models=StaticModelProvider({"actor": actor}), config=CodurConfig(**config), on_event=events.append)
    return result, actor, events


def test_a_looping_agent_gives_no_answer(invoice_repo: Path):
    read = call("read_file", path="billing.py")
    result, actor, _ = ask(invoice_repo, [read, read, read])
    assert len(actor.calls) == 3  # one read, two refused repeats: the loop ended "repeating"
    assert result.status is RunStatus.FAILED
    assert result.reason == "no_answer: agent ended: repeating"
    assert result.verification["strategy"] == "answer" and not result.verification["passed"]


def test_an_agent_out_of_iterations_gives_no_answer(invoice_repo: Path):
    reads = [call("read_file", path="billing.py"), call("grep", pattern="VAT"), call("list_files")]
    result, _, _ = ask(invoice_repo, reads, max_iterations=3)
    assert result.status is RunStatus.FAILED and result.reason == "no_answer: agent ended: max_iterations"


def test_no_answer_is_retried_while_turns_are_left(invoice_repo: Path):
    read = call("read_file", path="billing.py")
    # turn 1 loops; review replans (the planner is the actor's model here), turn 2 answers
    result, _, _ = ask(invoice_repo, [read, read, read, '{"steps": ["read billing.py"]}',
                                      "VAT_PERCENT in billing.py sets it."], max_turns=2)
    assert result.status is RunStatus.SUCCESS and result.reason == "answered"
    assert result.turns == 2


def test_a_dry_run_question_does_not_succeed(invoice_repo: Path):
    result, actor, _ = ask(invoice_repo, [], dry_run=True, max_turns=3)
    assert actor.calls == []
    assert result.status is RunStatus.DRY_RUN and result.reason == "dry_run"
    assert result.turns == 1  # nothing can change in a dry run: no second turn
    assert result.verification["reasoning"] == "no answer: no agent was called (dry run)"


def test_a_dry_run_fix_ends_after_one_turn(invoice_repo: Path):
    actor = ScriptedChatModel(replies=[])
    result = run(RunRequest(task="make the failing tests pass", repo=invoice_repo, dry_run=True),
                 models=StaticModelProvider({"actor": actor}), config=CodurConfig(critic=False, repair=False))
    assert actor.calls == [] and result.status is RunStatus.DRY_RUN and result.reason == "dry_run"
    assert result.turns == 1


def test_an_answer_given_with_done_or_a_final_reply_passes(invoice_repo: Path):
    for final in [call("done", summary="VAT_PERCENT in billing.py"), "VAT_PERCENT in billing.py sets it."]:
        result, _, _ = ask(invoice_repo, [call("read_file", path="billing.py"), final])
        assert result.status is RunStatus.SUCCESS and result.reason == "answered", final


def test_a_question_is_not_sent_to_the_critic_model(invoice_repo: Path):
    actor = ScriptedChatModel(replies=["VAT_PERCENT in billing.py sets it."])
    critic = ScriptedChatModel(replies=[])
    result = run(RunRequest(task=QUESTION, repo=invoice_repo), models=StaticModelProvider({"actor": actor,
                                                                                          "critic": critic}),
                 config=CodurConfig(critic=True, repair=False, max_turns=1))
    assert result.status is RunStatus.SUCCESS and result.reason == "answered" and critic.calls == []
