"""codur.core.files: the one unified diff and the one atomic write, checked against git itself."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from codur.core.files import atomic_write_bytes, atomic_writer, copy_ignore, unified_diff


def git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    (tmp_path / "shop.py").write_text("def total(items):\n    return sum(items)\n")
    (tmp_path / "old.py").write_text("X = 1")  # no newline at the end
    return tmp_path


def test_a_changed_created_and_deleted_file_apply_with_git(repo: Path):
    diff = (unified_diff("shop.py", "def total(items):\n    return sum(items)\n",
                         "def total(items):\n    return round(sum(items), 2)\n")
            + unified_diff("new.py", None, "Y = 2\n") + unified_diff("old.py", "X = 1", None))
    assert "--- /dev/null\n+++ b/new.py" in diff and "--- a/old.py\n+++ /dev/null" in diff
    assert "\\ No newline at end of file\n" in diff
    (repo / "fix.patch").write_text(diff)
    done = git(repo, "apply", "fix.patch")
    assert done.returncode == 0, done.stderr
    assert "round(sum(items), 2)" in (repo / "shop.py").read_text()
    assert (repo / "new.py").read_text() == "Y = 2\n" and not (repo / "old.py").exists()


def test_equal_texts_give_no_diff():
    assert unified_diff("a.py", "x = 1\n", "x = 1\n") == ""


def test_atomic_write_keeps_the_mode_and_leaves_no_temp_file(tmp_path: Path):
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\necho old\n")
    script.chmod(0o750)
    atomic_write_bytes(script, b"#!/bin/sh\necho new\n")
    assert script.read_text().endswith("echo new\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert os.listdir(tmp_path) == ["run.sh"]


def test_a_failed_write_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    target = tmp_path / "data.json"
    target.write_text('{"a": 1}')

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_bytes(target, b'{"a": 2}')
    assert target.read_text() == '{"a": 1}' and os.listdir(tmp_path) == ["data.json"]


def test_an_error_inside_the_atomic_writer_leaves_the_old_file_and_no_temp_file(tmp_path: Path):
    target = tmp_path / "model.gguf"
    target.write_bytes(b"old")
    with pytest.raises(ValueError), atomic_writer(target) as out:
        out.write(b"half of the new")
        raise ValueError("checksum mismatch")
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["model.gguf"]
    with atomic_writer(target) as out:
        out.write(b"new, ")
        out.write(b"in parts")
    assert target.read_bytes() == b"new, in parts"


def test_a_copy_of_a_repo_leaves_out_the_ignored_folders_and_fifos(tmp_path: Path):
    src = tmp_path / "src"
    for rel in (".git/HEAD", ".venv/bin/python", "node_modules/x.js", "pkg/__pycache__/a.pyc", "pkg/a.py"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text("x")
    os.mkfifo(src / "pipe")
    shutil.copytree(src, tmp_path / "copy", ignore=copy_ignore(), symlinks=True)
    assert sorted(p.relative_to(tmp_path / "copy").as_posix() for p in (tmp_path / "copy").rglob("*")) == [
        "pkg", "pkg/a.py"]
    shutil.copytree(src, tmp_path / "kept", ignore=copy_ignore(keep={".git"}), symlinks=True)
    assert (tmp_path / "kept" / ".git" / "HEAD").is_file() and not (tmp_path / "kept" / ".venv").exists()
