"""Workers: private copies, the shared fork server, timeouts that kill process groups."""

from __future__ import annotations

import time
from pathlib import Path

from codur.testing import command as testcmd
from codur.testing.forkserver import Runner
from codur.validate.worker import Worker

from .conftest import write_repo


def _with_marker(marker: bytes) -> list[str]:
    """Processes whose command line holds ``marker`` (pids seen from here)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes():
                found.append(entry.name)
        except OSError:
            continue
    return found


def test_timeout_kills_the_whole_process_group(tmp_path):
    repo = write_repo(tmp_path / "repo", {
        ".git/HEAD": "ref: refs/heads/main\n",
        "test_hang.py": '''
            import subprocess
            import sys
            from pathlib import Path


            def test_hang():
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "codur-hang-child"])
                Path("child.pid").write_text(str(child.pid))
                while True:
                    pass


            def test_quick():
                assert True
            ''',
    })
    command = testcmd.resolve(repo, None)
    runner = Runner(command.python, repo)
    try:
        with Worker(repo, command, runner=runner) as worker:
            assert not (worker.root / ".git").exists()  # copies leave .git out
            start = time.monotonic()
            result = worker.run(["test_hang.py::test_hang", "-p", "no:cacheprovider"], 1.5)
            assert result.status == "timeout"
            assert time.monotonic() - start < 10
            assert (worker.root / "child.pid").is_file()  # a pid in the sandbox's PID namespace, maybe
            deadline = time.monotonic() + 5
            while _with_marker(b"codur-hang-child") and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not _with_marker(b"codur-hang-child")
            quick = worker.run(["test_hang.py::test_quick", "-p", "no:cacheprovider"], 10)
            assert quick.status == "passed"
            tmp = worker.tmp
        assert not tmp.exists()
    finally:
        runner.close()
    assert (repo / "test_hang.py").exists() and not (repo / "child.pid").exists()


def test_subprocess_mode_for_other_commands(tmp_path):
    repo = write_repo(tmp_path / "repo", {"check.py": "import sys\nsys.exit(3)\n"})
    command = testcmd.resolve(repo, ["python", "check.py"])
    assert not command.is_pytest
    with Worker(repo, command) as worker:
        assert worker.run([], 10).status == "failed"


def test_a_workers_run_is_the_one_test_run_with_its_tests_and_an_abort_is_a_killed_run(tmp_path):
    from codur.testing.runner import report_env

    tests = "def test_ok():\n    pass\n\n\ndef test_bad():\n    assert 1 == 2\n"
    repo = write_repo(tmp_path / "repo", {"test_m.py": tests})
    command = testcmd.resolve(repo, None)
    with Worker(repo, command) as worker:
        out = worker.tmp / "report.json"
        run = worker.run(["-p", testcmd.PLUGIN, "-p", "no:cacheprovider"], 60, report_env(out), report=out)
        assert (run.status, run.exit_code, run.timed_out) == ("failed", 1, False)
        assert run.passed == ["test_m.py::test_ok"] and run.failed == ["test_m.py::test_bad"]
        assert "assert 1 == 2" in run.tracebacks["test_m.py::test_bad"] and run.summary == "1 passed, 1 failed"
        assert worker.run(["-p", "no:cacheprovider"], 60).tests == {}  # no report asked: no tests read
        worker.abort()
        stopped = worker.run(["-p", "no:cacheprovider"], 60)
        assert (stopped.status, stopped.exit_code, stopped.tests) == ("aborted", None, {})


def test_runner_without_pytest_fails_clearly(tmp_path):
    import pytest

    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'No module named pytest' >&2\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(RuntimeError, match="No module named pytest"):
        Runner(str(fake), tmp_path)


def test_warm_runner_is_reused_then_closed(tmp_path):
    from codur.testing.forkserver import close_warm_runners, keep_runner, take_runner

    python = testcmd.resolve(tmp_path, None).python
    runner = take_runner(python, tmp_path)
    keep_runner(runner)
    assert take_runner(python, tmp_path) is runner  # no second pytest import
    keep_runner(runner)
    close_warm_runners()
    assert not runner.alive
