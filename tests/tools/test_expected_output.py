"""Issue 14: an entry point run against an expected output stops as soon as its output differs."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from codur.sandbox.bwrap import bwrap_problem
from codur.tools import ToolExecutor
from codur.tools.output_match import diverges, first_difference

SLOW_WRONG = ("import subprocess, sys, time\n"
              "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
              "open('child.pid', 'w').write(str(child.pid))\n"
              "print('goodbye', flush=True)\n"
              "time.sleep(30)\n"
              "print('never')\n")


def test_a_wrong_first_line_ends_the_run_at_once(tmp_path: Path) -> None:
    (tmp_path / "slow.py").write_text(SLOW_WRONG)
    ex = ToolExecutor(tmp_path)
    t0 = time.monotonic()
    result = ex.execute("run_python_file", {"path": "slow.py", "expected_output": "hello\nworld\n", "timeout_s": 60})
    elapsed = time.monotonic() - t0
    assert result.ok and elapsed < 10, (elapsed, result.output)
    assert "its output differs from the expected output" in result.output
    assert "expected output: differs at line 1: expected 'hello', got 'goodbye'" in result.output
    assert "stdout:\ngoodbye" in result.output and "never" not in result.output
    # the whole process group was killed, the grandchild too (without bubblewrap its pid is
    # ours to check; with it, the pid is in the sandbox's PID namespace, which died with it)
    if bwrap_problem() is not None:
        pid = int((tmp_path / "child.pid").read_text())
        time.sleep(0.3)
        alive = Path(f"/proc/{pid}/stat").exists() and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
        assert not alive, "the grandchild outlived the stopped run"


def test_a_matching_output_runs_to_the_end(tmp_path: Path) -> None:
    (tmp_path / "greet.py").write_text("import time\nprint('hello')\ntime.sleep(0.3)\nprint('world  ')\n")
    out = ToolExecutor(tmp_path).execute("run_python_file", {"path": "greet.py",
                                                             "expected_output": "hello\r\nworld\n\n"}).output
    assert out.startswith("exit code 0") and "expected output: matches" in out


def test_more_output_than_expected_is_a_difference(tmp_path: Path) -> None:
    (tmp_path / "chatty.py").write_text("import time\nprint('hello')\nprint('extra', flush=True)\ntime.sleep(30)\n")
    t0 = time.monotonic()
    out = ToolExecutor(tmp_path).execute("run_python_file", {"path": "chatty.py", "expected_output": "hello"}).output
    assert time.monotonic() - t0 < 10
    assert "expected output: differs at line 2: unexpected 'extra' after the expected output" in out


@pytest.mark.parametrize("so_far,expected,differs", [
    ("", "hello", False),
    ("hel", "hello", False),           # a line still being written
    ("hello\n", "hello", False),
    ("hello\n\n", "hello", False),     # trailing blank lines
    ("hello  \nwor", "hello\nworld", False),
    ("help", "hello", True),
    ("goodbye\n", "hello\nworld", True),
    ("hello\nworld\nmore", "hello\nworld", True),
    ("a\r\nb\r\n", "a\nb", False),
])
def test_diverges(so_far: str, expected: str, differs: bool) -> None:
    assert diverges(so_far, expected) is differs


def test_first_difference() -> None:
    assert first_difference("a\nb\n", "a\nb") is None
    assert first_difference("a\n", "a\nb") == "line 2: expected 'b', the output ended"
    assert first_difference("a\nc\n", "a\nb") == "line 2: expected 'b', got 'c'"
