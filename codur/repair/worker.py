"""One evaluation worker: a private copy of the repository and a warm test runner.

For pytest commands on POSIX the runner is a fork server (``_runtime/codur_repair_zygote``)
with pytest preloaded, so a run costs a fork instead of an interpreter start and a pytest
import. Other commands run as subprocesses. Either way each run is in its own process
group, killed whole (``os.killpg``) when it exceeds its timeout or is aborted.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from codur.repair import testcmd

COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "venv", ".codur", "__pycache__", "*.pyc",
                                     ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".nox")


@dataclass(frozen=True)
class RunResult:
    """Outcome of one test run: ``status`` is "passed", "failed", "timeout" or "aborted"."""

    status: str
    returncode: int
    elapsed_s: float


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


class Worker:
    """A copy of ``repo`` in a temp dir plus a runner for ``command``.

    Not thread-safe except :meth:`abort`, which may be called from any thread to kill
    the run in progress and refuse further runs until :meth:`reset`. Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, repo: Path, command: testcmd.TestCommand, index: int = 0):
        self.command = command
        self.tmp = Path(tempfile.mkdtemp(prefix=f"codur-repair-w{index}-"))
        self.root = self.tmp / "repo"
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._aborted = False
        self._zygote: subprocess.Popen | None = None
        try:
            shutil.copytree(repo, self.root, ignore=COPY_IGNORE, symlinks=True)
            if command.is_pytest and hasattr(os, "fork"):
                self._start_zygote()
        except BaseException:
            self.close()
            raise

    def _start_zygote(self) -> None:
        script = testcmd.RUNTIME_DIR / "codur_repair_zygote.py"
        self._zygote = subprocess.Popen(
            [self.command.python, str(script)], cwd=self.root, env=testcmd.plugin_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True)
        if not self._read().get("ready"):
            raise RuntimeError("repair worker failed to start")

    def _read(self) -> dict:
        assert self._zygote is not None and self._zygote.stdout is not None
        line = self._zygote.stdout.readline()
        if not line:
            raise RuntimeError("repair worker exited")
        return json.loads(line)

    def run(self, args: list[str], timeout_s: float, env: dict[str, str] | None = None) -> RunResult:
        """Run pytest with ``args`` (or the whole non-pytest command) in the copy.

        ``timeout_s`` is in seconds. Returns a :class:`RunResult`; raises RuntimeError if
        the runner died.
        """
        start = time.monotonic()
        with self._lock:
            if self._aborted:
                return RunResult("aborted", -9, 0.0)
        if self._zygote is not None:
            job = {"cwd": str(self.root), "args": args, "env": env or {}, "timeout": timeout_s}
            assert self._zygote.stdin is not None
            self._zygote.stdin.write((json.dumps(job) + "\n").encode())
            self._zygote.stdin.flush()
            with self._lock:
                self._pid = self._read()["pid"]
                if self._aborted:
                    _killpg(self._pid)
            reply = self._read()
            code, timed_out = reply["rc"], reply["timeout"]
        else:
            code, timed_out = self._subprocess(args, timeout_s, env)
        with self._lock:
            self._pid = None
            aborted = self._aborted
        status = ("aborted" if aborted else "timeout" if timed_out
                  else "passed" if code == 0 else "failed")
        return RunResult(status, code, time.monotonic() - start)

    def _subprocess(self, args: list[str], timeout_s: float, env: dict[str, str] | None):
        argv = self.command.pytest_argv(*args) if self.command.is_pytest else list(self.command.argv)
        proc = subprocess.Popen(argv, cwd=self.root, env=testcmd.plugin_env(**(env or {})),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        with self._lock:
            self._pid = proc.pid
            if self._aborted:
                _killpg(proc.pid)
        try:
            return proc.wait(timeout=timeout_s), False
        except subprocess.TimeoutExpired:
            _killpg(proc.pid)
            proc.wait()
            return -9, True
        finally:
            _killpg(proc.pid)

    def reset(self) -> None:
        """Clear an earlier :meth:`abort` before the worker takes a new mutant."""
        with self._lock:
            self._aborted = False

    def abort(self) -> None:
        """Kill the run in progress (if any); it then reports status "aborted"."""
        with self._lock:
            self._aborted = True
            if self._pid is not None:
                _killpg(self._pid)

    def close(self) -> None:
        """Kill the runner and everything it started; delete the copy."""
        self.abort()
        if self._zygote is not None:
            _killpg(self._zygote.pid)
            self._zygote.wait()
            for stream in (self._zygote.stdin, self._zygote.stdout):
                if stream:
                    stream.close()
            self._zygote = None
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
