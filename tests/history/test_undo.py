"""`codur undo` after real runs (scripted model): files put back, edits made since refused or forced."""

from __future__ import annotations

import json
from pathlib import Path

from codur.engine.lock import RepoLock
from codur.tools.journal import MANIFEST, file_state

from .conftest import FIX_NEW, call, failed_run, scripted_run, snapshot, successful_run


def test_undo_after_a_successful_run_puts_every_file_back(repo: Path, cli):
    before = snapshot(repo)
    result = successful_run(repo)
    assert FIX_NEW in (repo / "billing.py").read_text() and (repo / "notes.txt").exists()
    assert not (repo / "old.txt").exists()
    manifest = json.loads((result.run_dir / MANIFEST).read_text())["files"]
    assert manifest == {"billing.py": file_state((repo / "billing.py").read_bytes()),
                        "notes.txt": file_state((repo / "notes.txt").read_bytes()), "old.txt": "absent"}

    undone = cli("undo", "--repo", str(repo))  # no id: the last run
    assert undone.exit_code == 0, undone.output
    assert snapshot(repo) == before  # billing.py's original bytes, notes.txt deleted, old.txt back
    assert "restored billing.py" in undone.stdout and "restored old.txt" in undone.stdout
    assert "deleted notes.txt (the run created it)" in undone.stdout
    record = json.loads((result.run_dir / "undone.json").read_text())
    assert record["restored"] == ["billing.py", "old.txt"] and record["deleted"] == ["notes.txt"]
    assert record["forced"] is False

    again = cli("undo", result.run_id, "--repo", str(repo))
    assert again.exit_code == 1 and f"run {result.run_id} was already undone" in again.stderr
    assert snapshot(repo) == before


def test_undo_after_a_failed_run_by_id_prefix(repo: Path, cli):
    original = (repo / "billing.py").read_bytes()
    result = failed_run(repo, keep_failed=True)
    assert result.status.value == "failed" and (repo / "billing.py").read_bytes() != original
    undone = cli("undo", result.run_id[:17], "--repo", str(repo))
    assert undone.exit_code == 0, undone.output
    assert (repo / "billing.py").read_bytes() == original
    assert f"undid run {result.run_id}: 1 files" in undone.stdout


def test_files_edited_after_the_run_are_refused_then_forced(repo: Path, cli):
    before = snapshot(repo)
    result = successful_run(repo)
    (repo / "billing.py").write_text((repo / "billing.py").read_text() + "# my own edit\n")
    (repo / "old.txt").write_text("I wrote this after the run\n")
    edited = snapshot(repo)

    refused = cli("undo", "--repo", str(repo))
    assert refused.exit_code == 1 and refused.stderr.strip().count("\n") == 0
    assert f"changed since run {result.run_id}: billing.py, old.txt" in refused.stderr
    assert snapshot(repo) == edited  # nothing touched, notes.txt included
    assert not (result.run_dir / "undone.json").exists()

    forced = cli("undo", "--repo", str(repo), "--force")
    assert forced.exit_code == 0, forced.output
    assert snapshot(repo) == before
    assert "overwrote changes made since: billing.py, old.txt" in forced.stdout
    record = json.loads((result.run_dir / "undone.json").read_text())
    assert record["forced"] is True and record["overwritten"] == ["billing.py", "old.txt"]
    backup = Path(record["backup"])  # the edits --force overwrote are kept, and the command says where
    assert backup.parent == result.run_dir / "before-undo" and f"just before: {backup}" in forced.stdout
    assert (backup / "billing.py").read_bytes() == edited["billing.py"]
    assert (backup / "old.txt").read_text() == "I wrote this after the run\n"

    listed = json.loads(cli("runs", "--repo", str(repo), "--json").stdout)
    [run] = [r for r in listed if r["run_id"] == result.run_id]
    assert run["status"] == "undone" and run["undone"] == record["undone_at"]
    assert run["status_before_undo"] == "success"


def test_the_last_run_is_the_last_that_changed_files(repo: Path, cli):
    first = failed_run(repo, keep_failed=True)
    second = successful_run(repo)
    assert cli("undo", "--repo", str(repo)).exit_code == 0
    assert (second.run_dir / "undone.json").exists() and not (first.run_dir / "undone.json").exists()
    assert "10% from" in (repo / "billing.py").read_text()  # the failed run's edit stays
    again = cli("undo", "--repo", str(repo))
    assert again.exit_code == 1 and "already undone" in again.stderr


def test_a_run_without_manifest_is_checked_against_its_diff_then_needs_force(repo: Path, cli):
    before = snapshot(repo)
    result = successful_run(repo)
    (result.run_dir / MANIFEST).unlink()  # a run from before the runner wrote it: diff.patch tells the end state
    (repo / "notes.txt").write_text("edited after the run\n")
    refused = cli("undo", "--repo", str(repo))
    assert refused.exit_code == 1 and f"changed since run {result.run_id}: notes.txt " in refused.stderr
    (repo / "notes.txt").write_text("bulk discount from 10 items\n")  # as the run left it
    assert cli("undo", "--repo", str(repo)).exit_code == 0
    assert snapshot(repo) == before

    result = scripted_run(repo, [call("write_file", path="notes.txt", content="x\n"), "ok"], manifest=False,
                          keep_failed=True)
    (result.run_dir / "diff.patch").unlink()  # killed before writing it up: nothing tells the end state
    refused = cli("undo", "--repo", str(repo))
    assert refused.exit_code == 1 and f"has neither {MANIFEST} nor diff.patch" in refused.stderr
    assert (repo / "notes.txt").exists()
    assert cli("undo", result.run_id, "--repo", str(repo), "--force").exit_code == 0
    assert snapshot(repo) == before


def test_undo_refuses_while_a_run_holds_the_repo_and_with_nothing_to_undo(repo: Path, cli):
    before = snapshot(repo)
    assert cli("undo", "--repo", str(repo)).exit_code == 1  # no run at all
    successful_run(repo)
    held = RepoLock.acquire(repo, "busy")
    try:
        locked = cli("undo", "--repo", str(repo))
    finally:
        held.release()
    assert locked.exit_code == 1 and "repo_locked" in locked.stderr
    assert (repo / "notes.txt").exists()
    (repo / "notes.txt").unlink()
    for name in ("billing.py", "old.txt"):
        (repo / name).write_text(before[name].decode())  # the user put everything back by hand
    by_hand = cli("undo", "--repo", str(repo))
    assert by_hand.exit_code == 1 and "are as they were before it: nothing to undo" in by_hand.stderr
    missing = cli("undo", "nosuchrun", "--repo", str(repo))
    assert missing.exit_code == 2 and "no run 'nosuchrun'" in missing.stderr


def test_a_journal_path_outside_the_repo_is_refused(repo: Path, cli, tmp_path: Path):
    result = successful_run(repo)
    index_path = result.run_dir / "originals" / "index.json"
    index = json.loads(index_path.read_text())
    index["../outside.txt"] = None  # a tampered journal must not delete files outside the repo
    index_path.write_text(json.dumps(index))
    (tmp_path / "outside.txt").write_text("keep me\n")
    refused = cli("undo", "--repo", str(repo), "--force")
    assert refused.exit_code == 1 and "outside the repo: ../outside.txt" in refused.stderr
    assert (tmp_path / "outside.txt").read_text() == "keep me\n"


def test_a_file_the_test_suite_deletes_is_reported_and_undo_brings_it_back(repo: Path, cli, monkeypatch):
    """Issue 21, item 4: the repo's tests run in place (observe, verify); a conftest.py that
    deletes a committed file is caught, reported (event, result, summary line) and undone.
    Without bubblewrap (under it the suite writes a layer, never the repo: test_user_edits.py)."""
    import subprocess

    monkeypatch.setenv("CODUR_SANDBOX", "off")
    (repo / "important.txt").write_text("the user's notes, not codur's to lose\n")
    (repo / "conftest.py").write_text("import pathlib\n\n"
                                      "pathlib.Path(__file__).with_name('important.txt').unlink(missing_ok=True)\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=repo, check=True)
    before = snapshot(repo)
    # keep_failed: the failed run keeps what happened, so codur undo is what puts it back (without
    # it the failed run reverts the suite's deletion itself: test_failed_run_reverts.py)
    result = scripted_run(repo, ["I will not change anything."], max_turns=1, keep_failed=True)
    assert not (repo / "important.txt").exists()
    assert result.metadata.tests_changed == [{"path": "important.txt", "change": "deleted", "restorable": True}]
    events = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
    said = [e["message"] for e in events if e["event_type"] == "tests.changed_files"]
    assert said == ["the test suite deleted important.txt"]  # once: later runs find nothing more to delete
    assert "important.txt" in result.metadata.files_changed

    undone = cli("undo", "--repo", str(repo))
    assert undone.exit_code == 0, undone.output
    assert "restored important.txt" in undone.stdout
    assert snapshot(repo) == before


def test_a_failed_run_puts_back_what_the_test_suite_deleted(repo: Path, monkeypatch):
    import subprocess

    monkeypatch.setenv("CODUR_SANDBOX", "off")  # under bubblewrap the suite writes a layer, not the repo
    (repo / "important.txt").write_text("the user's notes\n")
    (repo / "conftest.py").write_text("import pathlib\n\n"
                                      "pathlib.Path(__file__).with_name('important.txt').unlink(missing_ok=True)\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    result = scripted_run(repo, ["I will not change anything."], max_turns=1)
    assert not result.ok and result.metadata.reverted
    assert (repo / "important.txt").read_text() == "the user's notes\n"
