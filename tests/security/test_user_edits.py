"""Issue 52, item 3: the user's edits are theirs. codur reverts only what it can prove it or the
tests wrote: under bubblewrap the repo's tests write a copy-on-write layer, never the repo, so a
file the user saves while they run is not the suite's; a large file a script deletes is kept
whole; one run per git work tree at a time."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from codur.engine.lock import RepoLock, RepoLocked
from codur.tools import ToolExecutor, ToolSettings
from codur.tools.testing import layered

LAYERED = layered()
# the repo's test waits (at most 60 s) until the user's save shows, then fails: the run fails
WAITS_FOR_THE_USER = (
    "import time\nfrom pathlib import Path\n\nNOTES = Path(__file__).resolve().parents[1] / 'notes.txt'\n\n\n"
    "def test_sees_the_users_save():\n"
    "    for _ in range(1200):\n"
    "        if 'saved by the user' in NOTES.read_text():\n            break\n        time.sleep(0.05)\n"
    "    assert False, 'the run fails, so codur reverts what it changed'\n")
# the suite writes a file, rewrites one, deletes one and a whole folder
WRITER = (
    "import shutil\nfrom pathlib import Path\n\nROOT = Path(__file__).resolve().parents[1]\n\n\n"
    "def test_writes():\n    (ROOT / 'out.txt').write_text('made by a test')\n"
    "    (ROOT / 'data.txt').write_text('overwritten by a test')\n    (ROOT / 'important.txt').unlink()\n"
    "    shutil.rmtree(ROOT / 'docs')\n    assert not (ROOT / 'important.txt').exists()\n")


def _repo(tmp_path: Path, test: str) -> Path:
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.md").write_text("the guide\n")
    (repo / "notes.txt").write_text("the user's notes\n")
    (repo / "data.txt").write_text("the user's data\n")
    (repo / "important.txt").write_text("keep me\n")
    (repo / "tests" / "test_it.py").write_text(test)
    return repo


def _wait_for_tests_in(repo: Path) -> bool:
    """Whether a process running pytest on ``repo`` shows up within 60 s (polled from /proc)."""
    for _ in range(1200):
        for entry in Path("/proc").iterdir():
            try:
                line = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if str(repo).encode() in line and b"pytest" in line:
                return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not LAYERED, reason="needs bubblewrap with an overlay here")
def test_a_file_the_user_saves_while_the_tests_run_is_not_reverted(tmp_path: Path) -> None:
    repo = _repo(tmp_path, WAITS_FOR_THE_USER)
    events: list[dict] = []
    tools = ToolExecutor(repo, ToolSettings(timeout_s=120), on_event=events.append)
    done: list = []
    runner = threading.Thread(target=lambda: done.append(tools.run_tests(caller="verify")))
    runner.start()
    assert _wait_for_tests_in(repo)
    (repo / "notes.txt").write_text("the user's notes\nsaved by the user while the tests ran\n")  # the editor
    runner.join(120)
    assert done and "tests/test_it.py::test_sees_the_users_save" in done[0].failed  # it saw the save
    assert not [e for e in events if e["event_type"] == "tests.changed_files"]  # not the suite's
    tools.journal.restore()  # what a failed run does
    assert (repo / "notes.txt").read_text() == "the user's notes\nsaved by the user while the tests ran\n"


@pytest.mark.skipif(not LAYERED, reason="needs bubblewrap with an overlay here")
def test_what_the_suite_writes_lands_in_its_layer_and_is_reported(tmp_path: Path) -> None:
    repo = _repo(tmp_path, WRITER)
    before = {p.relative_to(repo).as_posix(): p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    events: list[dict] = []
    tools = ToolExecutor(repo, ToolSettings(timeout_s=120), on_event=events.append)
    run = tools.run_tests(caller="verify")
    assert "tests/test_it.py::test_writes" in run.passed  # inside, every write happened
    after = {p.relative_to(repo).as_posix(): p.read_bytes() for p in repo.rglob("*")
             if p.is_file() and ".codur" not in p.parts and "__pycache__" not in p.parts
             and ".pytest_cache" not in p.parts}
    assert after == before and tools.journal.changed_files == []
    changed = next(e for e in events if e["event_type"] == "tests.changed_files")
    assert {(c["path"], c["change"]) for c in changed["changes"]} == {
        ("out.txt", "created"), ("data.txt", "modified"), ("important.txt", "deleted"),
        ("docs/guide.md", "deleted")}
    assert changed["restored"] is True and "in its own layer" in changed["message"]


def test_a_2_mb_file_a_script_deletes_is_kept_whole_and_put_back(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "")
    big = os.urandom(2_000_000)
    (repo / "dataset.bin").write_bytes(big)
    (repo / "wipe.py").write_text("from pathlib import Path\nPath('dataset.bin').unlink()\nprint('done')\n")
    events: list[dict] = []
    tools = ToolExecutor(repo, run_dir=tmp_path / "run", on_event=events.append)
    result = tools.execute("run_python_file", {"path": "wipe.py"})
    assert result.ok and not (repo / "dataset.bin").exists()
    changed = next(e for e in events if e["event_type"] == "tests.changed_files")
    assert changed["changes"] == [{"path": "dataset.bin", "change": "deleted", "restorable": True}]
    assert "too large" not in changed["message"]
    assert "Binary files a/dataset.bin and /dev/null differ (2000000 bytes before" in tools.journal.diff()
    tools.journal.restore()
    assert (repo / "dataset.bin").read_bytes() == big


def test_a_run_on_a_subfolder_and_one_on_the_whole_repo_share_one_lock(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    held = RepoLock.acquire(repo, "whole-repo")
    try:
        with pytest.raises(RepoLocked, match="whole-repo"):
            RepoLock.acquire(repo / "docs", "subfolder")
    finally:
        held.release()
    RepoLock.acquire(repo / "docs", "subfolder").release()  # free again once the first run ended


def test_a_file_codur_edited_and_the_user_saved_after_it_is_not_put_back(tmp_path: Path) -> None:
    """The failed run's revert puts back codur's own edit of ``other.py``, not ``calc.py``, which
    the user saved after codur's edit; the manifest records what codur left, so ``codur undo``
    finds ``calc.py`` changed since the run."""
    import json

    from codur.tools.journal import MANIFEST, file_state

    repo = _repo(tmp_path, "")
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (repo / "other.py").write_text("X = 1\n")
    tools = ToolExecutor(repo, run_dir=tmp_path / "run")
    codurs = "def add(a, b):\n    return a + b\n"
    assert tools.execute("write_file", {"path": "calc.py", "content": codurs}).ok
    assert tools.execute("write_file", {"path": "other.py", "content": "X = 2\n"}).ok
    users = "def add(a, b):\n    return a + b  # checked by hand\n"
    (repo / "calc.py").write_text(users)  # the editor, while the run goes on
    assert tools.journal.changed_by_others() == ["calc.py"]
    tools.journal.write_manifest()
    manifest = json.loads((tmp_path / "run" / MANIFEST).read_text())["files"]
    assert manifest["calc.py"] == file_state(codurs.encode())
    restored, _ = tools.journal.restore()  # what a failed run does
    assert restored == ["other.py"] and (repo / "other.py").read_text() == "X = 1\n"
    assert (repo / "calc.py").read_text() == users
