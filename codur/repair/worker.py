"""Evaluation workers: private copies of the repository and a warm, shared test runner.

For pytest commands on POSIX one fork server (``_runtime/codur_repair_zygote.py``) with
pytest preloaded serves every worker, so a run costs a fork instead of an interpreter
start and a pytest import. Other commands run as subprocesses. Either way each run is in
its own process group, killed whole on timeout or abort; the server, or each subprocess,
runs under bubblewrap when it works (:mod:`codur.repair.sandbox`).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from codur.core.files import copy_ignore
from codur.repair import sandbox
from codur.sandbox.bwrap import bwrap_problem, interpreter_paths, spawn
from codur.sandbox.limits import MEMORY_ENV
from codur.sandbox.process import signal_group
from codur.testing import command as testcmd

#: Exit code of a pytest run in which a test hit its per-test time limit (the repair
#: plugin's ``CODUR_REPAIR_TIMEOUT_EXIT``, set on every run here): status "timeout".
TEST_TIMEOUT_EXIT = 124


def copy_repo(repo: Path, dest: Path) -> None:
    """Copy ``repo`` to ``dest`` for a worker (links kept as links, :func:`codur.core.files.copy_ignore`
    left out).

    Raises:
        OSError: one line naming the first file that could not be copied and why.
    """
    try:
        shutil.copytree(repo, dest, ignore=copy_ignore(), symlinks=True)
    except shutil.Error as exc:
        problems = exc.args[0] if exc.args and isinstance(exc.args[0], list) else [("?", "?", str(exc))]
        src, _, why = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise OSError(f"cannot copy the repo for the test workers: {src}: {why}{more}") from None
    except OSError as exc:
        raise OSError(f"cannot copy the repo for the test workers: {exc}") from None


@dataclass(frozen=True)
class RunResult:
    """Outcome of one test run: ``status`` is "passed", "failed", "timeout" or "aborted"."""

    status: str
    returncode: int
    elapsed_s: float




class Runner:
    """Client of one fork server (``_runtime/codur_repair_zygote.py``) shared by all workers.

    With a working bwrap the server runs in it (:mod:`codur.repair.sandbox`): its runs may
    write only the scratch area, under /tmp they see besides only ``python``'s prefix
    (read-only), and it kills what an ended run left behind. A run in a folder the server
    cannot see (a repo under /tmp, run in place) is a confined subprocess of its own, so
    one warm server serves every repo. :meth:`run` may be called from many threads at
    once; a reader thread routes the server's replies. The constructor raises
    RuntimeError if ``python`` cannot start it (e.g. pytest is not installed there);
    :meth:`run` raises it if the server dies.
    """

    def __init__(self, python: str, cwd: Path):
        script = testcmd.RUNTIME_DIR / "codur_repair_zygote.py"
        env = testcmd.plugin_env(python)
        self.python, self.key = python, _runner_key(python)
        self.confined = sandbox.problem() is None
        self.seen = sandbox.readable(*interpreter_paths(python))
        argv = [python, str(script)]
        if self.confined:
            argv = sandbox.confine([*argv, "--sweep"], sandbox.scratch_root(), self.seen)
            env["TMPDIR"] = "/tmp"  # the sandbox's private one
        self._errors = tempfile.TemporaryFile()  # noqa: SIM115  (lives as long as the server)
        self._proc = spawn(
            argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._errors, start_new_session=True)
        self._lock = threading.Lock()
        self._jobs: dict[int, dict] = {}
        self._ids = itertools.count()
        self._dead = False
        line = self._proc.stdout.readline()
        if not line or not json.loads(line).get("ready"):
            self._errors.seek(0)
            tail = self._errors.read().decode(errors="replace").strip().splitlines()[-1:]
            self.close()
            raise RuntimeError(f"{python} could not start the pytest runner: {' '.join(tail)}")
        threading.Thread(target=self._read, name="codur-repair-runner", daemon=True).start()

    def _read(self) -> None:
        for line in self._proc.stdout:
            reply = json.loads(line)
            with self._lock:
                job = self._jobs.get(reply["id"])
            if job is None:
                continue
            if "pid" in reply:
                job["on_start"](functools.partial(self.kill, reply["id"]))
            else:
                job["reply"] = reply
                job["done"].set()
        with self._lock:
            self._dead = True
            for job in self._jobs.values():
                job["done"].set()

    def run(self, cwd: Path, args: list[str], env: dict[str, str], timeout_s: float,
            on_start: Callable[[Callable[[], None]], None]) -> tuple[int, bool]:
        """Run ``pytest args`` in ``cwd`` with ``env`` added, at most ``timeout_s`` seconds;
        return (exit code, timed out). ``on_start`` gets, once the run started, the function
        that kills it. Report files named in ``env`` (:data:`testcmd.PLUGIN_FILES`) may lie
        anywhere: a confined run's go through the scratch area's spool."""
        if self.confined and not sandbox.visible(cwd, self.seen):
            argv = [self.python, "-m", "pytest", *args]
            return sandbox.run_confined(argv, cwd, testcmd.plugin_env(self.python, **env), timeout_s, on_start, cwd)
        job_id = next(self._ids)
        finish = None
        if self.confined:
            env, finish = sandbox.spool(env, f"{os.getpid()}-{job_id}", self.seen)
        job = {"on_start": on_start, "done": threading.Event(), "reply": None}
        request = {"id": job_id, "cwd": str(cwd), "args": args, "env": env, "timeout": timeout_s}
        with self._lock:
            if self._dead:
                raise RuntimeError("the test runner (fork server) exited")
            self._jobs[job_id] = job
            self._send(request)
        job["done"].wait()
        with self._lock:
            del self._jobs[job_id]
        if finish is not None:
            finish()
        if job["reply"] is None:
            raise RuntimeError("the test runner (fork server) exited")
        return job["reply"]["rc"], job["reply"]["timeout"]

    def kill(self, job_id: int) -> None:
        """Kill run ``job_id`` with its process group (the server does it: under bwrap its
        pids are not ours)."""
        with self._lock, contextlib.suppress(OSError, ValueError):
            self._send({"kill": job_id})

    def _send(self, request: dict) -> None:
        self._proc.stdin.write((json.dumps(request) + "\n").encode())
        self._proc.stdin.flush()

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None and not self._dead

    def close(self) -> None:
        """End the server; closing its stdin makes it kill every running child."""
        try:
            self._proc.stdin.close()
            self._proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            pass
        signal_group(self._proc.pid)
        self._proc.wait()
        self._proc.stdout.close()
        self._errors.close()


def _runner_key(python: str) -> tuple:
    """A warm runner serves the same interpreter, environment and sandbox state."""
    return python, hash(frozenset(testcmd.plugin_env().items())), bwrap_problem() is None


_warm: dict[tuple[str, int], Runner] = {}
_warm_lock = threading.Lock()


def take_runner(python: str, cwd: Path) -> Runner:
    """The runner an earlier repair left warm for ``python`` (and this environment), or a
    new one. Raises RuntimeError if a new one cannot start."""
    with _warm_lock:
        runner = _warm.pop(_runner_key(python), None)
    if runner is not None and runner.alive:
        return runner
    if runner is not None:
        runner.close()
    return Runner(python, cwd)


def keep_runner(runner: Runner) -> None:
    """Keep ``runner`` warm for the next repair, so the pytest import is paid once per
    process. Only the latest runner is kept (others are closed); all close at exit."""
    if not runner.alive:
        runner.close()
        return
    with _warm_lock:
        old = list(_warm.values())
        _warm.clear()
        _warm[runner.key] = runner
    for other in old:
        if other is not runner:
            other.close()


def close_warm_runners() -> None:
    """Close every runner kept warm by :func:`keep_runner`."""
    with _warm_lock:
        runners = list(_warm.values())
        _warm.clear()
    for runner in runners:
        runner.close()


atexit.register(close_warm_runners)


class Worker:
    """A copy of ``repo`` in the scratch area (:func:`codur.repair.sandbox.scratch_root`)
    whose tests run through ``runner`` (or subprocesses, each under bwrap when it works).

    Not thread-safe except :meth:`abort`, which may be called from any thread to kill
    the run in progress and refuse further runs until :meth:`reset`. Use as a context
    manager, or call :meth:`close`.
    """

    def __init__(self, repo: Path, command: testcmd.TestCommand, index: int = 0,
                 runner: Runner | None = None):
        self.command = command
        self.runner = runner
        self.origin = Path(repo).absolute()
        self.memory_mb: int | None = None  # each run's address-space limit, MiB (set by the session)
        self.confined = sandbox.problem() is None  # says once when not (from the caller's thread: its trace)
        self.tmp = Path(tempfile.mkdtemp(prefix=f"w{index}-", dir=sandbox.scratch_root()))
        self.root = self.tmp / "repo"
        self._lock = threading.Lock()
        self._kill: Callable[[], None] | None = None
        self._aborted = False
        try:
            copy_repo(repo, self.root)
        except BaseException:
            self.close()
            raise

    def _started(self, kill: Callable[[], None]) -> None:
        with self._lock:
            self._kill = kill
            if self._aborted:
                kill()

    def run(self, args: list[str], timeout_s: float, env: dict[str, str] | None = None) -> RunResult:
        """Run pytest with ``args`` (or the whole non-pytest command) in the copy.

        ``timeout_s`` is in seconds; a pytest run also ends as "timeout" when a test hit
        the plugin's per-test limit (``CODUR_REPAIR_TEST_TIMEOUT`` in ``env``). With
        :attr:`memory_mb` the run's address space is limited (a test past it fails with a
        MemoryError). Returns a
        :class:`RunResult`; raises RuntimeError if the runner died.
        """
        start = time.monotonic()
        with self._lock:
            if self._aborted:
                return RunResult("aborted", -9, 0.0)
        if self.command.is_pytest:
            env = {**(env or {}), "CODUR_REPAIR_TIMEOUT_EXIT": str(TEST_TIMEOUT_EXIT)}
        if self.memory_mb:
            env = {**(env or {}), MEMORY_ENV: str(self.memory_mb)}
        if self.runner is not None:
            code, timed_out = self.runner.run(self.root, args, env or {}, timeout_s, self._started)
        else:
            code, timed_out = self._subprocess(args, timeout_s, env)
        with self._lock:
            self._kill = None
            aborted = self._aborted
        timed_out = timed_out or (self.command.is_pytest and code == TEST_TIMEOUT_EXIT)
        status = ("aborted" if aborted else "timeout" if timed_out
                  else "passed" if code == 0 else "failed")
        return RunResult(status, code, time.monotonic() - start)

    def _subprocess(self, args: list[str], timeout_s: float, env: dict[str, str] | None):
        argv = self.command.pytest_argv(*args) if self.command.is_pytest else list(self.command.argv)
        env = testcmd.plugin_env(self.command.python, **(env or {}))
        if (self.root / "src").is_dir():  # shadow an install of the original src/ layout
            env["PYTHONPATH"] = os.pathsep.join([str(self.root / "src"), env["PYTHONPATH"]])
        return sandbox.run_confined(argv, self.root, env, timeout_s, self._started, self.origin,
                                   self.command.interpreter)

    def reset(self) -> None:
        """Clear an earlier :meth:`abort` before the worker takes a new mutant."""
        with self._lock:
            self._aborted = False

    def abort(self) -> None:
        """Kill the run in progress (if any); it then reports status "aborted"."""
        with self._lock:
            self._aborted = True
            if self._kill is not None:
                self._kill()

    def close(self) -> None:
        """Kill the run in progress and delete the copy (the runner is closed by its owner)."""
        self.abort()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def can_fork_server(command: testcmd.TestCommand) -> bool:
    """True when ``command`` can run through a :class:`Runner` (pytest on POSIX)."""
    return command.is_pytest and hasattr(os, "fork")
