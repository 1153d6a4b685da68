"""The warm pytest fork server: one server (``_runtime/codur_repair_zygote.py``) with pytest
preloaded serves every run of an interpreter, so a run costs a fork instead of an interpreter
start and a pytest import. Its client (:class:`Runner`), and the one kept warm between
repairs (:func:`take_runner`, :func:`keep_runner`, :func:`close_warm_runners`). Runs start
through :func:`codur.testing.runner.run_tests`, the one function that starts a test run.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import json
import os
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from codur.sandbox.bwrap import bwrap_problem, cannot_see
from codur.sandbox.interpreter import interpreter_paths
from codur.sandbox.lifetime import spawn
from codur.sandbox.process import signal_group
from codur.testing import command as testcmd
from codur.testing import confine as sandbox


class Runner:
    """Client of one fork server (``_runtime/codur_repair_zygote.py``) shared by all workers.

    ``secrets``: the repo ``cwd``'s credential files and ``.git`` credentials, hidden in its runs at
    their absolute paths (:class:`codur.testing.confine.OriginSecrets`: the worker copies hold them
    empty, but a test could read the repo's own by its path).

    With a working bwrap the server runs in it (:mod:`codur.testing.confine`): its runs may
    write only the scratch area, under /tmp they see besides only ``python``'s prefix
    (read-only), and it kills what an ended run left behind. A run in a folder the server
    cannot see (a repo under /tmp, run in place) is a confined subprocess of its own, so
    one warm server serves every repo. :meth:`run` may be called from many threads at
    once; a reader thread routes the server's replies. The constructor raises
    RuntimeError if ``python`` cannot start it (e.g. pytest is not installed there);
    :meth:`run` raises it if the server dies.
    """

    def __init__(self, python: str, cwd: Path, *, secrets: sandbox.OriginSecrets = sandbox.OriginSecrets()):
        script = testcmd.RUNTIME_DIR / "codur_repair_zygote.py"
        env = testcmd.plugin_env(python)
        self.confined = sandbox.problem() is None
        self.seen = sandbox.readable(*interpreter_paths(python))
        self.python, self.key = python, (_runner_key(python), secrets)
        argv = [python, str(script)]
        if self.confined:
            argv = sandbox.confine([*argv, "--sweep"], sandbox.scratch_root(), self.seen, secrets)
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
            why = cannot_see(python, "the tests' interpreter") if tail and tail[0].startswith("bwrap: execvp") else ""
            raise RuntimeError(f"{python} could not start the pytest runner: {' '.join(tail)} {why}".rstrip())
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
        anywhere: a confined run's go through the scratch area's spool. ``cwd`` must be a
        folder the server sees (:meth:`sees`); :func:`codur.testing.runner.run_tests` runs
        the others as confined subprocesses."""
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

    def sees(self, cwd: Path) -> bool:
        """True when a run in ``cwd`` can be forked by this server (an unconfined server sees
        everything; a confined one the scratch area and what is bound back)."""
        return not self.confined or sandbox.visible(cwd, self.seen)

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


_warm: dict[tuple, Runner] = {}
_warm_lock = threading.Lock()


def take_runner(python: str, cwd: Path, *, secrets: sandbox.OriginSecrets = sandbox.OriginSecrets()) -> Runner:
    """The runner an earlier repair left warm for ``python`` (and this environment, and the same
    ``secrets`` of the repo ``cwd`` hidden: see :class:`Runner`), or a new one.
    Raises RuntimeError if a new one cannot start."""
    with _warm_lock:
        runner = _warm.pop((_runner_key(python), secrets), None)
    if runner is not None and runner.alive:
        return runner
    if runner is not None:
        runner.close()
    return Runner(python, cwd, secrets=secrets)


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


def can_fork_server(command: testcmd.TestCommand) -> bool:
    """True when ``command`` can run through a :class:`Runner` (pytest on POSIX)."""
    return command.is_pytest and hasattr(os, "fork")
