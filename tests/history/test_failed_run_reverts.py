"""A run that ends without success puts its edits back and keeps them as attempt.patch."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import FIX_NEW, FIX_OLD, call, failed_run, scripted_run, snapshot, successful_run


def test_a_failed_run_leaves_the_files_as_they_were_and_keeps_the_attempt(repo: Path, cli):
    before = snapshot(repo)
    result = scripted_run(repo, [
        call("replace_in_file", path="billing.py", old="10% when at least", new="10% from"),
        call("write_file", path="notes.txt", content="bulk discount from 10 items\n"),
        "Reworded the docstring.",
    ], max_turns=1)
    assert result.status.value == "failed"
    assert snapshot(repo) == before  # billing.py's bytes are back, notes.txt is gone
    assert result.reverted and result.attempt_path == result.run_dir / "attempt.patch"
    attempt = result.attempt_path.read_text()
    assert '-    """Percent off a line: 10% when at least' in attempt and "+bulk discount from 10 items" in attempt
    assert attempt == result.diff == (result.run_dir / "diff.patch").read_text()
    assert result.files_changed == ["billing.py", "notes.txt"]  # what it attempted
    saved = json.loads((result.run_dir / "result.json").read_text())["metadata"]
    assert saved["reverted"] is True and saved["attempt_path"] == str(result.attempt_path)
    trace = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
    assert [e["files"] for e in trace if e.get("event_type") == "run.reverted"] == [["billing.py", "notes.txt"]]
    again = cli("undo", result.run_id, "--repo", str(repo))  # the revert was the undo
    assert again.exit_code == 1 and "already undone" in again.stderr
    assert snapshot(repo) == before


def test_keep_failed_keeps_the_edit(repo: Path):
    original = (repo / "billing.py").read_bytes()
    result = failed_run(repo, keep_failed=True)
    assert result.status.value == "failed" and not result.reverted and result.attempt_path is None
    assert (repo / "billing.py").read_bytes() != original and "10% from" in (repo / "billing.py").read_text()
    assert not (result.run_dir / "attempt.patch").exists()


def test_undo_without_an_id_skips_a_run_that_reverted_itself(repo: Path, cli):
    before = snapshot(repo)
    success = successful_run(repo)
    failed = scripted_run(repo, [call("replace_in_file", path="billing.py", old=FIX_NEW, new=FIX_OLD), "Done."],
                          max_turns=1)  # puts the bug back: the tests fail, and the edit is reverted
    assert failed.status.value == "failed" and failed.reverted and not success.reverted
    undone = cli("undo", "--repo", str(repo))
    assert undone.exit_code == 0, undone.output
    assert f"undid run {success.run_id}" in undone.stdout and snapshot(repo) == before
