"""The repo's own environment runs its tests everywhere: codur, installed elsewhere, fixes a
repo whose dependency lives only in the repo's ``.venv``; without it the suite cannot start,
and the run says so instead of "fixing" anything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.testing.conftest import ALERTS, write_repo

CODUR = Path(sys.executable).with_name("codur")
TASK = "make the failing tests pass"


def codur(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith("CODUR_") and k != "VIRTUAL_ENV"}
    base.update({"CODUR_FIXERS": '["mutation"]', **(env or {})})
    return subprocess.run([str(CODUR), *args], capture_output=True, text=True, timeout=timeout, env=base,
                          stdin=subprocess.DEVNULL, check=False)


def events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def test_a_dependency_only_in_the_repos_venv_is_fixed_from_another_environment(fresh_venv_repo):
    repo = fresh_venv_repo
    premise = subprocess.run([sys.executable, "-c", "import tempconv"], capture_output=True, check=False)
    assert premise.returncode != 0  # codur's own interpreter cannot import the dependency
    proc = codur(TASK, "--repo", str(repo), "--json")
    seen = events(proc.stdout)
    command = next(e for e in seen if e["event_type"] == "tests.command")
    assert command["origin"] == ".venv" and command["argv"][0] == str(repo / ".venv" / "bin" / "python")
    assert command["command"].startswith(".venv/bin/python -m pytest")
    result = seen[-1]
    assert (proc.returncode, result["status"], result["reason"]) == (0, "success", "verified"), proc.stderr[-2000:]
    assert "c_to_f(celsius) <= FREEZING_F" in (repo / "thermo" / "alerts.py").read_text()
    after = subprocess.run([str(repo / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                           cwd=repo, capture_output=True, text=True, check=False)
    assert after.returncode == 0, after.stdout[-1000:]


def test_a_suite_that_cannot_start_ends_in_error_and_changes_nothing(tmp_path):
    repo = write_repo(tmp_path / "no-env")  # no .venv: codur's interpreter lacks tempconv
    proc = codur(TASK, "--repo", str(repo), "--json")
    seen = events(proc.stdout)
    result = seen[-1]
    assert (proc.returncode, result["status"], result["reason"]) == (1, "error", "test_setup_failed")
    assert "No module named 'tempconv'" in result["output_text"] and "-m pytest" in result["output_text"]
    assert [e["event_type"] for e in seen].count("tests.setup_failed") == 1
    assert not any(e["event_type"].startswith("patch.") for e in seen)  # nothing was searched
    assert (repo / "thermo" / "alerts.py").read_text() == ALERTS


def test_test_command_from_flag_file_and_variable(fresh_venv_repo):
    repo = fresh_venv_repo
    proc = codur(TASK, "--repo", str(repo), "--json", "--test-cmd", "pytest tests -q")
    seen = events(proc.stdout)
    command = next(e for e in seen if e["event_type"] == "tests.command")
    assert command["argv"][:3] == [str(repo / ".venv" / "bin" / "pytest"), "tests", "-q"]  # the repo's pytest
    assert command["origin"] == "test_command" and seen[-1]["status"] == "success"

    (repo / "codur.toml").write_text('test_command = "python -m pytest tests"\n')
    shown = codur("config", "-r", str(repo))
    assert shown.returncode == 0
    row = next(line for line in shown.stdout.splitlines() if line.strip("│ ").startswith("test_command"))
    assert "python" in row and "codur.toml" in row
    assert "tests: .venv/bin/python -m pytest tests (test_command)" in shown.stdout
    shown = codur("config", "-r", str(repo), env={"CODUR_TEST_COMMAND": "pytest -x", "COLUMNS": "200"})
    row = next(line for line in shown.stdout.splitlines() if line.strip("│ ").startswith("test_command"))
    assert "pytest" in row and "CODUR_TEST_COMMAND" in row


def test_a_bad_test_command_is_one_line_and_exit_2(fresh_venv_repo):
    repo = fresh_venv_repo
    cases = [(["--test-cmd", "pytset -x"], {}, "--test-cmd: command not found: pytset"),
             ([], {"CODUR_TEST_COMMAND": "nosuchtool run"}, "CODUR_TEST_COMMAND: command not found: nosuchtool"),
             ([], {"CODUR_TEST_COMMAND": " "}, "CODUR_TEST_COMMAND: empty test command")]
    for flags, env, message in cases:
        proc = codur(TASK, "--repo", str(repo), *flags, env=env)
        assert proc.returncode == 2, (flags, env, proc.stderr)
        assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    (repo / "codur.toml").write_text('test_command = ["./missing.sh"]\n')  # not pytest: only a trusted file's
    xdg = {"XDG_CONFIG_HOME": str(repo.parent / "xdg-trust")}
    assert codur("trust", str(repo), env=xdg).returncode == 0
    proc = codur(TASK, "--repo", str(repo), env=xdg)
    assert proc.returncode == 2 and "codur.toml: test_command: command not found: ./missing.sh" in proc.stderr
    assert (repo / "thermo" / "alerts.py").read_text() == ALERTS


def test_a_command_that_is_not_pytest_is_one_test(fresh_venv_repo):
    repo = fresh_venv_repo
    script = repo / "run_tests.sh"
    script.write_text("#!/bin/sh\nexec .venv/bin/python -m pytest -q -p no:cacheprovider tests\n")
    script.chmod(0o755)
    proc = codur(TASK, "--repo", str(repo), "--json", "--test-cmd", "./run_tests.sh", "--timeout", "120")
    seen = events(proc.stdout)
    command = next(e for e in seen if e["event_type"] == "tests.command")
    assert command["argv"] == [str(script)] and command["origin"] == "test_command"
    observe_run = next(e for e in seen if e["event_type"] == "tests.run")
    assert observe_run["exit_code"] == 1  # the whole command failed: one failing test
    assert seen[-1]["status"] in ("success", "failed")
    if seen[-1]["status"] == "success":  # then the script's own run passes
        assert subprocess.run([str(script)], cwd=repo, capture_output=True, check=False).returncode == 0
