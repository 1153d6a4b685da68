"""Python tools on real files: syntax check, running a file, pytest, entry points."""

from __future__ import annotations

import re
import time
from pathlib import Path

from codur.tools import ToolExecutor, ToolSettings


def test_validate_python_syntax_reports_each_error(ex: ToolExecutor, repo: Path) -> None:
    assert ex.execute("validate_python_syntax", {}).output == "ok: 3 files compile"
    assert ex.execute("validate_python_syntax", {"path": "calc.py"}).output == "ok: 1 file compiles"
    (repo / "bad.py").write_text("def f(:\n    pass\n")
    (repo / "indent.py").write_text("def g():\nreturn 1\n")
    (repo / "outside_fn.py").write_text("return 5\n")  # found by compile, not by ast.parse
    out = ex.execute("validate_python_syntax", {}).output
    assert out.startswith("3 of 6 files have errors:")
    assert "bad.py:1:7: SyntaxError: invalid syntax\n    def f(:\n          ^" in out
    assert "indent.py:2:1: IndentationError: expected an indented block" in out
    assert "outside_fn.py:1:1: SyntaxError: 'return' outside function" in out
    assert "no .py file at README.md" in ex.execute("validate_python_syntax", {"path": "README.md"}).output


def test_run_python_file_with_args_stdin_and_exit_code(ex: ToolExecutor, repo: Path) -> None:
    (repo / "echo.py").write_text(
        "import sys\nfrom calc import mul\nprint(sys.argv[1:], mul(2, 3))\nprint(sys.stdin.read().upper())\n"
        "print('warn', file=sys.stderr)\nsys.exit(3)\n")
    out = ex.execute("run_python_file", {"path": "echo.py", "args": ["--x", "1"], "stdin": "hello"}).output
    assert out.startswith("exit code 3 (")
    assert "stdout:\n['--x', '1'] 6\nHELLO\nstderr:\nwarn" in out
    (repo / "app").mkdir()
    (repo / "app" / "__init__.py").write_text("")
    (repo / "app" / "__main__.py").write_text("from .core import NAME\nprint('running', NAME)\n")
    (repo / "app" / "core.py").write_text("NAME = 'app'\n")
    assert "stdout:\nrunning app" in ex.execute("run_python_file", {"path": "app/__main__.py"}).output
    crash = ex.execute("run_python_file", {"path": "calc.py", "args": []})
    assert crash.ok and "exit code 0" in crash.output
    assert "is not a .py file" in ex.execute("run_python_file", {"path": "README.md"}).output
    assert "no such file" in ex.execute("run_python_file", {"path": "nope.py"}).output


def test_run_python_file_timeout_kills_the_process_tree(ex: ToolExecutor, repo: Path, tmp_path: Path,
                                                       process_gone, snapshot, monkeypatch) -> None:
    monkeypatch.setenv("CODUR_SANDBOX", "off")  # host pids, a marker outside the repo; bwrap: test_sandbox.py
    marker = tmp_path / "child.pid"
    (repo / "spin.py").write_text(
        "import subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', 'while True: pass'])\n"
        f"open({str(marker)!r}, 'w').write(str(p.pid))\nprint('started', flush=True)\nwhile True: time.sleep(0.1)\n")
    before = snapshot(repo)
    t0 = time.monotonic()
    out = ex.execute("run_python_file", {"path": "spin.py", "timeout_s": 1.5}).output
    assert time.monotonic() - t0 < 8 and snapshot(repo) == before
    assert out.startswith("timed out after 1.5s; the process and its children were killed") and "started" in out
    assert process_gone(int(marker.read_text()))


def test_run_pytest_reports_ids_and_tracebacks(ex: ToolExecutor, repo: Path) -> None:
    out = ex.execute("run_pytest", {}).output
    assert out.splitlines()[:3] == ["pytest: 1 passed, 1 failed (exit code 1)",
                                    "passed: ['tests/test_calc.py::test_mul']",
                                    "failed: ['tests/test_calc.py::test_add']"]
    assert "FAILED tests/test_calc.py::test_add" in out and "assert -1 == 3" in out
    only = ex.execute("run_pytest", {"selection": ["tests/test_calc.py::test_mul"]}).output
    assert only.splitlines() == ["pytest: 1 passed (exit code 0)", "passed: ['tests/test_calc.py::test_mul']"]


def test_run_pytest_timeout_is_reported(repo: Path, snapshot) -> None:
    (repo / "tests" / "test_hang.py").write_text("def test_hang():\n    while True:\n        pass\n")
    before = snapshot(repo)
    result = ToolExecutor(repo, ToolSettings(timeout_s=2)).execute("run_pytest", {"selection": ["tests/test_hang.py"]})
    assert result.ok and result.output.startswith("pytest timed out after 2s (an infinite loop?)")
    assert snapshot(repo) == before


def test_run_pytest_fails_a_looping_test_at_its_limit_and_runs_the_rest(repo: Path, monkeypatch) -> None:
    monkeypatch.setattr("codur.tools.testing.TEST_TIMEOUT_S", 0.5)
    (repo / "tests" / "test_hang.py").write_text(
        "def test_hang():\n    n = 0\n    while n < 1:\n        n *= 2\n\n\ndef test_after():\n    assert True\n")
    start = time.monotonic()
    executor = ToolExecutor(repo, ToolSettings(timeout_s=60))
    out = executor.execute("run_pytest", {"selection": ["tests/test_hang.py"]}).output
    assert time.monotonic() - start < 30  # the 0.5 s per-test limit, not the run's 60 s
    assert out.splitlines()[:3] == ["pytest: 1 passed, 1 failed (exit code 1)",
                                    "passed: ['tests/test_hang.py::test_after']",
                                    "failed: ['tests/test_hang.py::test_hang']"]
    assert "TimeoutError: codur: test exceeded its time limit" in out
    assert re.search(r"tests/test_hang.py:[34]: in test_hang", out)  # the stack of the running loop


def test_run_pytest_refuses_options_and_outside_paths(ex: ToolExecutor, repo: Path, snapshot) -> None:
    before = snapshot(repo)
    for selection, message in [(["-p", "evil"], "is an option"), (["../x/test_a.py"], "escapes the repository"),
                               (["tests/test_nope.py"], "no such file")]:
        result = ex.execute("run_pytest", {"selection": selection})
        assert not result.ok and message in result.output
    assert snapshot(repo) == before


def test_discover_entry_points(ex: ToolExecutor, repo: Path) -> None:
    assert ex.execute("discover_entry_points", {}).output.startswith("no entry points found")
    (repo / "pyproject.toml").write_text('[project]\nname = "calc"\n[project.scripts]\ncalc = "app.cli:main"\n')
    (repo / "setup.cfg").write_text("[options.entry_points]\nconsole_scripts =\n    calc-cfg = app.cli:main\n")
    (repo / "setup.py").write_text(
        "from setuptools import setup\nsetup(entry_points={'console_scripts': ['calc-py = app.cli:run']})\n")
    (repo / "app").mkdir()
    (repo / "app" / "__init__.py").write_text("")
    (repo / "app" / "__main__.py").write_text("print(1)\n")
    (repo / "app" / "cli.py").write_text("def main():\n    pass\n\nif __name__ == '__main__':\n    main()\n")
    (repo / "main.py").write_text("print('no guard here')\n")  # a name alone is not an entry point
    (repo / "tool.py").write_text("text = 'if __name__ == \"__main__\"'\n")
    assert ex.execute("discover_entry_points", {}).output.splitlines() == [
        "console script calc = app.cli:main (pyproject.toml [project.scripts])",
        "console script calc-cfg = app.cli:main (setup.cfg)",
        "console script calc-py = app.cli:run (setup.py)",
        "package main: python -m app (app/__main__.py)",
        "main guard: python app/cli.py",
    ]
