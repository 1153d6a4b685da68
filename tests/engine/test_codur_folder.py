"""``.codur/`` is ignored by git through its own ``.gitignore``; the user's is never touched."""

from __future__ import annotations

import subprocess
from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.llm import StaticModelProvider


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                          check=True, capture_output=True, text=True).stdout


def test_git_ignores_the_run_folder_and_the_users_gitignore_is_untouched(invoice_repo: Path):
    (invoice_repo / ".gitignore").write_text("__pycache__/\n")
    git(invoice_repo, "init", "-q")
    git(invoice_repo, "add", "-A")
    git(invoice_repo, "commit", "-qm", "invoice")
    result = run(RunRequest(task="make the failing tests pass", repo=invoice_repo), models=StaticModelProvider({}),
                 config=CodurConfig(fixers=["mutation"], repair_workers=1, mutation_time_box_s=30))
    assert result.status is RunStatus.SUCCESS, result.reason
    assert (invoice_repo / ".codur" / "runs").is_dir()
    assert (invoice_repo / ".codur" / ".gitignore").read_text() == "*\n"
    assert git(invoice_repo, "status", "--porcelain", "--untracked-files=all").splitlines() == [" M billing.py"]
    assert (invoice_repo / ".gitignore").read_text() == "__pycache__/\n"
