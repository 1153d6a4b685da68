"""Issue 36, item 5: a script the agent runs in the repo (``run_python_file``) that deletes and
rewrites files is journaled like a test run: reported, and put back by the journal (what a
failed run and ``codur undo`` use)."""

from __future__ import annotations

from pathlib import Path

from codur.tools import ToolExecutor

SCRIPT = ("from pathlib import Path\nPath('important.txt').unlink()\nPath('calc.py').write_text('BROKEN = 1\\n')\n"
          "Path('new.txt').write_text('made by the script\\n')\nprint('done')\n")


def test_a_script_s_writes_are_reported_and_put_back(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "important.txt").write_text("keep me\n")
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (repo / "wipe.py").write_text(SCRIPT)
    events: list[dict] = []
    ex = ToolExecutor(repo, on_event=events.append)
    result = ex.execute("run_python_file", {"path": "wipe.py"})
    assert result.ok and "done" in result.output
    assert not (repo / "important.txt").exists() and (repo / "calc.py").read_text() == "BROKEN = 1\n"
    changed = [e for e in events if e["event_type"] == "tests.changed_files"]
    assert len(changed) == 1 and changed[0]["by"] == "running wipe.py"
    assert {(c["path"], c["change"]) for c in changed[0]["changes"]} == {
        ("important.txt", "deleted"), ("calc.py", "modified"), ("new.txt", "created")}
    assert "running wipe.py deleted important.txt" in changed[0]["message"]
    assert set(ex.ctx.journal.changed_files) == {"important.txt", "calc.py", "new.txt"}
    ex.ctx.journal.restore()  # what a failed run's revert and `codur undo` do
    assert (repo / "important.txt").read_text() == "keep me\n"
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert not (repo / "new.txt").exists()
