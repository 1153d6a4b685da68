"""CommandLineAgent with real small subprocesses (sys.executable -c ...)."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from codur.agents import CommandLineAgent
from codur.core.ports import AgentPort, AgentTask, QuotaStatus

PY = sys.executable


def agent(code: str, *args: str, **kwargs) -> CommandLineAgent:
    return CommandLineAgent("cli", [PY, "-c", code, *args], **kwargs)


@pytest.fixture
def plan(tmp_path):
    return AgentTask(prompt="fix the bug in calc.py", repo_root=tmp_path)


def _is_dead(pid: int, within_s: float = 5.0) -> bool:
    """Gone, or a zombie waiting for init to reap it."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        stat = Path(f"/proc/{pid}/stat")
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except (FileNotFoundError, IndexError):
            return True
        time.sleep(0.05)
    return False


# A child that starts a grandchild ignoring SIGTERM, waits for its pid file, then sleeps.
FAMILY = """
import subprocess, sys, time, pathlib
pidfile = pathlib.Path(sys.argv[1])
subprocess.Popen([sys.executable, "-c",
    "import os, signal, sys, time, pathlib; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "pathlib.Path(sys.argv[1]).write_text(str(os.getpid())); time.sleep(60)", str(pidfile)])
while not pidfile.exists() or not pidfile.read_text():
    time.sleep(0.01)
print("started", flush=True)
time.sleep(60)
"""


def test_is_an_agent_port():
    assert isinstance(agent("pass"), AgentPort)


def test_prompt_on_stdin_and_cwd_is_repo_root(plan):
    code = "import os, sys; print(sys.stdin.read().upper()); print(os.getcwd())"
    result = agent(code).run(plan)
    assert result.success and result.exit_code == 0
    assert result.output.splitlines() == ["FIX THE BUG IN CALC.PY", str(plan.repo_root)]


def test_prompt_placeholder_is_substituted_and_stdin_is_empty(plan):
    code = "import sys; print(repr(sys.argv[1:])); print(repr(sys.stdin.read()))"
    result = agent(code, "--message", "{prompt}", "x{prompt}").run(plan)
    assert result.output.splitlines() == [
        "['--message', 'fix the bug in calc.py', 'x{prompt}']",
        "''",
    ]


def test_env_is_added_to_the_inherited_one(plan):
    code = "import os; print(os.environ['CODUR_T'], 'PATH' in os.environ)"
    assert agent(code, env={"CODUR_T": "v"}).run(plan).output.strip() == "v True"


def test_non_zero_exit(plan):
    code = "import sys; print('working'); print('AssertionError: 1 != 2', file=sys.stderr); sys.exit(3)"
    result = agent(code).run(plan)
    assert not result.success and result.exit_code == 3
    assert result.output.splitlines()[0] == f"cli: {PY} exited with code 3"
    assert "working" in result.output and "AssertionError: 1 != 2" in result.output
    assert result.quota_state.status is QuotaStatus.OK


def test_long_output_keeps_the_tail_with_a_note(plan):
    code = "import sys; print('a' * 20000 + 'THE END'); sys.exit(1)"
    result = agent(code).run(plan)
    assert result.output.endswith("THE END")
    assert "earlier characters truncated" in result.output
    assert len(result.output) < 8200


@pytest.mark.parametrize(
    "message, status",
    [
        ("Error: Rate limit reached, retry after 20 seconds", QuotaStatus.RATE_LIMITED),
        ("You've hit your usage limit", QuotaStatus.QUOTA_EXHAUSTED),
    ],
)
def test_quota_phrase_in_stderr(plan, message, status):
    code = f"import sys; print({message!r}, file=sys.stderr); sys.exit(1)"
    result = agent(code).run(plan)
    assert result.quota_state.status is status
    if status is QuotaStatus.RATE_LIMITED:
        assert result.quota_state.retry_after_seconds == 20.0


def test_command_not_found(plan, tmp_path):
    result = CommandLineAgent("ghost", [str(tmp_path / "no-such-agent"), "{prompt}"]).run(plan)
    assert (result.success, result.exit_code) == (False, -1)
    assert result.output.startswith("command not found: ")


def test_not_executable_is_not_found(plan, tmp_path):
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    assert CommandLineAgent("x", [str(script)]).run(plan).exit_code == -1


def test_timeout_kills_the_whole_process_group(plan, tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    started = time.monotonic()
    result = agent(FAMILY, str(pidfile), timeout_s=3.0, term_grace_s=0.5).run(plan)
    assert time.monotonic() - started < 12
    assert pidfile.exists(), "the grandchild never started: machine too slow?"
    assert (result.success, result.exit_code) == (False, 124)
    assert result.output.startswith("cli: timed out after 3 s")
    assert "started" in result.output  # partial output kept
    assert _is_dead(int(pidfile.read_text()))


def test_keyboard_interrupt_kills_the_group_and_is_reraised(plan, tmp_path):
    pidfile = tmp_path / "grandchild.pid"

    def interrupt_when_started() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (pidfile.exists() and pidfile.read_text()):
            time.sleep(0.02)
        time.sleep(0.1)
        os.kill(os.getpid(), signal.SIGINT)

    # started under nohup or `&`, SIGINT is ignored: this test sets the default handler itself
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        thread = threading.Thread(target=interrupt_when_started, daemon=True)
        thread.start()
        with pytest.raises(KeyboardInterrupt):
            agent(FAMILY, str(pidfile), timeout_s=30.0, term_grace_s=0.5).run(plan)
        thread.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert _is_dead(int(pidfile.read_text()))


def test_missing_repo_root_is_not_command_not_found(tmp_path):
    plan = AgentTask(prompt="p", repo_root=tmp_path / "gone")
    result = agent("pass").run(plan)
    assert (result.success, result.exit_code) == (False, 1)


@pytest.mark.parametrize("kwargs", [{"command": []}, {"command": ["x"], "timeout_s": 0}])
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        CommandLineAgent("x", **kwargs)
