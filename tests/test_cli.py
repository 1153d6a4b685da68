"""The `codur` command as a user runs it: help without a model, one-line errors on bad input."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest


def codur(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codur.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_help_answers_without_starting_a_model():
    t0 = time.monotonic()
    proc = codur("--help")
    assert proc.returncode == 0
    for word in ("run", "repair", "rlm", "tools"):
        assert word in proc.stdout
    assert time.monotonic() - t0 < 60
    assert "llama" not in proc.stderr.lower()


@pytest.mark.parametrize("args,message", [
    (["", "--repo", "."], "the task is empty"),
    (["fix the tests", "--repo", "/no/such/repo"], "repository path does not exist"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    proc = codur(*args)
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0]


def test_dry_run_on_example_ends_with_status_and_no_diff(invoice_repo: Path):
    proc = codur("make the failing tests pass", "--repo", str(invoice_repo), "--dry-run", "--max-turns", "1")
    assert proc.returncode == 1, proc.stderr
    assert "status: failed" in proc.stdout and "(no changes)" in proc.stdout
    assert "▶ execute" in proc.stdout
    assert (invoice_repo / ".codur" / "runs").is_dir()
