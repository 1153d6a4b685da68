"""git_status, git_diff and git_log on a real git repository; a clear error elsewhere."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codur.tools import ToolExecutor

GIT_ENV = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com", "GIT_COMMITTER_NAME": "Ada",
           "GIT_COMMITTER_EMAIL": "ada@example.com", "GIT_AUTHOR_DATE": "2026-01-02T03:04:05",
           "GIT_COMMITTER_DATE": "2026-01-02T03:04:05", "PATH": "/usr/bin:/bin:/usr/local/bin"}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=GIT_ENV)


@pytest.fixture
def git_repo(repo: Path) -> Path:
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "Add calc")
    return repo


def test_git_status_diff_and_log(git_repo: Path) -> None:
    ex = ToolExecutor(git_repo)
    assert ex.execute("git_status", {}).output == "## main\nworking tree clean"
    assert ex.execute("git_diff", {}).output == "no unstaged changes under ."
    ex.execute("replace_in_file", {"path": "calc.py", "old": "a - b", "new": "a + b"})
    (git_repo / "notes.txt").write_text("todo\n")
    assert ex.execute("git_status", {}).output.splitlines() == ["## main", " M calc.py", "?? notes.txt"]
    diff = ex.execute("git_diff", {"path": "calc.py"}).output
    assert "--- a/calc.py\n+++ b/calc.py" in diff and "-    return a - b\n+    return a + b" in diff
    assert ex.execute("git_diff", {"staged": True}).output == "no staged changes under ."
    git(git_repo, "add", "calc.py")
    assert "+    return a + b" in ex.execute("git_diff", {"staged": True}).output
    git(git_repo, "commit", "-q", "-m", "Fix add")
    log = [line.split(" ", 1)[1] for line in ex.execute("git_log", {}).output.splitlines()]  # drop hashes
    assert log == ["2026-01-02 Ada: Fix add", "2026-01-02 Ada: Add calc"]
    assert len(ex.execute("git_log", {"max_count": 1, "path": "README.md"}).output.splitlines()) == 1
    assert "escapes" in ex.execute("git_diff", {"path": "../x"}).output


def test_git_tools_ignore_the_repos_own_fsmonitor_and_pager(git_repo: Path, tmp_path: Path) -> None:
    pwned = tmp_path / "pwned"
    hook = git_repo / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {pwned}\n")
    hook.chmod(0o755)
    git(git_repo, "config", "core.fsmonitor", str(hook))
    git(git_repo, "config", "core.pager", str(hook))
    ex = ToolExecutor(git_repo)
    assert ex.execute("git_status", {}).ok and ex.execute("git_diff", {}).ok and ex.execute("git_log", {}).ok
    assert not pwned.exists()


def test_git_tools_outside_a_git_repository(repo: Path, tmp_path: Path) -> None:
    ex = ToolExecutor(repo)
    if subprocess.run(["git", "-C", str(repo), "rev-parse"], capture_output=True, check=False).returncode == 0:
        pytest.skip("tmp_path is inside a git repository")
    for name in ("git_status", "git_diff", "git_log"):
        result = ex.execute(name, {})
        assert not result.ok and "not a git repository; use list_files" in result.output


def test_git_log_without_commits(repo: Path) -> None:
    git(repo, "init", "-q", "-b", "main")
    assert ToolExecutor(repo).execute("git_log", {}).output == "no commits yet"
