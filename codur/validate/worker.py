"""Evaluation workers: private copies of the repository whose tests run through the one
test runner (:func:`codur.testing.runner.run_tests`).

For pytest commands on POSIX one warm fork server (:mod:`codur.testing.forkserver`) serves
every worker, so a run costs a fork instead of an interpreter start and a pytest import.
Other commands run as subprocesses. Either way each run is in its own process group, killed
whole on timeout or abort; the server, or each subprocess, runs under bubblewrap when it
works (:mod:`codur.testing.confine`).
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Self

from codur.core.cpu import IDLE_ENV
from codur.core.files import copy_ignore
from codur.sandbox.limits import MEMORY_ENV
from codur.testing import command as testcmd
from codur.testing import confine
from codur.testing.forkserver import Runner
from codur.testing.report import TestRun, run_of
from codur.testing.runner import argv_of, run_tests
from codur.tools.executor import TestPolicy

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


class Worker:
    """A copy of ``repo`` in the scratch area (:func:`codur.testing.confine.scratch_root`)
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
        self.secrets = confine.OriginSecrets()  # what of the repo its runs must not read (set by the session)
        self.idle = False  # runs at SCHED_IDLE (set by the search, :meth:`reset`)
        self.policy = TestPolicy()  # the run's test policy (the session's, from the run's ToolExecutor)
        self.confined = confine.problem() is None  # says once when not (from the caller's thread: its trace)
        self.tmp = Path(tempfile.mkdtemp(prefix=f"w{index}-", dir=confine.scratch_root()))
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

    def run(self, args: list[str], timeout_s: float, env: dict[str, str] | None = None,
            report: Path | None = None) -> TestRun:
        """Run pytest with ``args`` (or the whole non-pytest command) in the copy; with ``report``
        (the plugin's report file, set in ``env``), the run's tests are read from it.

        ``timeout_s`` is in seconds; a pytest run also ends as "timeout" when a test hit
        the plugin's per-test limit (``CODUR_REPAIR_TEST_TIMEOUT`` in ``env``). With
        :attr:`memory_mb` the run's address space is limited (a test past it fails with a
        MemoryError); with :attr:`idle` the test process runs at ``SCHED_IDLE``. The run's test
        policy (:attr:`policy`, :class:`codur.tools.executor.TestPolicy`) holds: once the run is
        cancelled no run starts (status "aborted"), and under the tool policy read_only a run
        starts only confined (the repo bound read-only, only the scratch area writable).
        Returns the :class:`codur.testing.report.TestRun`, whose :attr:`~codur.testing.report.TestRun.status`
        is "passed", "failed", "timeout" (``timed_out``) or "aborted" (``exit_code`` None: killed
        by :meth:`abort`); raises RuntimeError if the runner died, or for a read_only run
        without the sandbox.
        """
        if self.policy.read_only and not self.confined:
            raise RuntimeError("the tool policy is read_only and bubblewrap does not work here: a candidate's "
                               "tests could write outside their copy")
        with self._lock:
            if self._aborted or (self.policy.cancel is not None and self.policy.cancel.is_set()):
                return run_of(None, None)
        if self.command.is_pytest:
            env = {**(env or {}), "CODUR_REPAIR_TIMEOUT_EXIT": str(TEST_TIMEOUT_EXIT)}
        if self.memory_mb:
            env = {**(env or {}), MEMORY_ENV: str(self.memory_mb)}
        if self.idle:
            env = {**(env or {}), IDLE_ENV: "1"}
        done = run_tests(self.command, self.root, argv_of(self.command, args), env or {}, timeout_s,
                         server=self.runner, on_start=self._started, origin=self.origin, shadow_src=True,
                         report=report, secrets=self.secrets)
        with self._lock:
            self._kill = None
            aborted = self._aborted
        if aborted:
            return dataclasses.replace(done, exit_code=None, timed_out=False)
        if self.command.is_pytest and done.exit_code == TEST_TIMEOUT_EXIT:
            return dataclasses.replace(done, timed_out=True)
        if done.exit_code is None and not done.timed_out:  # killed, not by abort nor the limit: it failed
            return dataclasses.replace(done, exit_code=-9)
        return done

    def reset(self, *, idle: bool = False) -> None:
        """Clear an earlier :meth:`abort` before the worker takes a new mutant; ``idle``: its runs
        go at ``SCHED_IDLE`` (they take only the cycles no other process wants)."""
        with self._lock:
            self._aborted = False
            self.idle = idle

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
