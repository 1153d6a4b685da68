"""Issue 55, item 4: a resumed run claims nothing of a repo it has not checked as it is now, and
``codur undo`` works on it.

The first start is cancelled once its verification passed (the cancel lands as review starts, where
a Ctrl-C during the critic's last call lands): a cancelled run's edits are put back. On main the
resumed run went on from review with the first start's verdict and ended ``success``/``verified``
with nothing changed and the bug still there; ``codur undo`` of a resumed run said "already undone"
(the first start's revert record); and a file the user edited between the first start and the
resume was put back by undo as if codur had left it so.
"""

from __future__ import annotations

import threading
from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.llm import ScriptedChatModel, StaticModelProvider

from .conftest import FIX_NEW, FIX_OLD, TASK, call, snapshot

FIX = call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW)
NOTE = call("write_file", path="notes.txt", content="bulk discount from 10 items\n")


def cancelled_at_review(repo: Path, actor: list, **config):
    """A first start whose verification passed, cancelled as review starts."""
    cancel = threading.Event()

    def on_event(event: dict) -> None:
        if (event.get("event_type"), event.get("node"), event.get("phase")) == ("engine.state", "review", "enter"):
            cancel.set()

    result = run(RunRequest(task=TASK, repo=repo, cancel_event=cancel),
                 models=StaticModelProvider({"actor": ScriptedChatModel(replies=actor)}),
                 config=CodurConfig(critic=False, repair=False, retry_base_delay_s=0, max_turns=1, **config),
                 on_event=on_event)
    assert result.status is RunStatus.CANCELLED
    return result


def resumed(repo: Path, run_id: str, actor: list, events: list | None = None, **config):
    return run(RunRequest(task=TASK, repo=repo, run_id=run_id, resume=True),
               models=StaticModelProvider({"actor": ScriptedChatModel(replies=actor)}),
               config=CodurConfig(critic=False, repair=False, retry_base_delay_s=0, **config),
               on_event=None if events is None else events.append)


def test_a_resume_after_the_cancel_put_the_edit_back_does_not_claim_it(repo: Path):
    first = cancelled_at_review(repo, [FIX, "Fixed."])
    assert first.metadata.reverted and FIX_OLD in (repo / "billing.py").read_text()

    events: list[dict] = []
    second = resumed(repo, first.run_id, ["Done."], events, max_turns=1)
    assert second.status is not RunStatus.SUCCESS, (second.status, second.reason)
    assert second.status is RunStatus.FAILED and second.files_changed == [] and second.diff == ""
    assert FIX_OLD in (repo / "billing.py").read_text()
    [resume] = [e for e in events if e["event_type"] == "run.resumed"]
    assert resume["next"] == ["review"] and resume["put_back"] == ["billing.py"]
    assert "verified again as it is now" in resume["rechecked"]
    nodes = [e["node"] for e in events if e["event_type"] == "engine.state" and e["phase"] == "enter"]
    assert nodes[0] == "verify"  # the repo is checked before review reads a verdict
    verdict = next(e for e in events if e["event_type"] == "verify.verdict")
    assert not verdict["passed"]


def test_a_resumed_run_that_redoes_the_edit_succeeds_and_undo_puts_it_back(repo: Path, cli):
    before = snapshot(repo)
    first = cancelled_at_review(repo, [FIX, "Fixed."])
    second = resumed(repo, first.run_id, [FIX, "Fixed again."], max_turns=2)
    assert second.status is RunStatus.SUCCESS and second.reason == "verified"
    assert second.files_changed == ["billing.py"] and f"+    {FIX_NEW}" in second.diff  # the diff that is there

    undone = cli("undo", first.run_id, "--repo", str(repo))
    assert undone.exit_code == 0, undone.output
    assert snapshot(repo) == before
    assert "restored billing.py" in undone.stdout


def test_undo_of_a_resumed_run_leaves_a_file_edited_since_the_first_start_left_it(repo: Path, cli):
    first = cancelled_at_review(repo, [FIX, NOTE, "Fixed."], keep_failed=True)  # the edits stay
    assert (repo / "notes.txt").is_file() and FIX_NEW in (repo / "billing.py").read_text()
    (repo / "notes.txt").write_text("my own notes\n")  # the user, before resuming
    second = resumed(repo, first.run_id, ["Done."], max_turns=1)
    assert second.status is RunStatus.SUCCESS and set(second.files_changed) == {"billing.py", "notes.txt"}

    refused = cli("undo", first.run_id, "--repo", str(repo))
    assert refused.exit_code == 1 and "changed since run" in refused.stderr and "notes.txt" in refused.stderr
    assert (repo / "notes.txt").read_text() == "my own notes\n" and FIX_NEW in (repo / "billing.py").read_text()
