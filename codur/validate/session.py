"""A repair session: the evaluator's setup every phase of a patch search shares (private
copies of the repo, the warm pytest fork server, the baseline localization and the checks).
Used by the candidate-patch pipeline (:class:`codur.patch.PatchPipeline`).
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codur.config import CodurConfig
from codur.core.events import Event
from codur.core.events.patch import PatchLocalizing, PatchSuite
from codur.sandbox.lifetime import make_temp_dir
from codur.testing import command as testcmd
from codur.testing.confine import OriginSecrets
from codur.testing.forkserver import Runner, can_fork_server, keep_runner, take_runner
from codur.testing.ids import file_of
from codur.testing.suite import Suite, suite_of
from codur.tools.executor import TestPolicy
from codur.tools.masking import blank_masked, origin_secrets
from codur.validate import localize
from codur.validate.checks import Baseline, checks_for
from codur.validate.evaluate import Candidate, Checks, Evaluation
from codur.validate.search import CandidateQueue, search
from codur.validate.selection import related_test_files
from codur.validate.source import read_source
from codur.validate.worker import Worker

#: Collected test cases of a failing test's own file the baseline runs whole; a bigger file
#: is represented by its failing tests alone.
OWN_TEST_BUDGET = 300


def _start_workers(repo: Path, command: testcmd.TestCommand, n: int, pool: list, *,
                   secrets: OriginSecrets = OriginSecrets()) -> None:
    """Start the shared runner (in a thread) and copy ``n`` workers into ``pool``; ``secrets``:
    what of the repo the runner's runs must not read (:class:`OriginSecrets`).

    ``pool`` receives the runner first (if any), then the workers; the caller closes
    them all, even when this raises.
    """
    if not can_fork_server(command):
        pool += [Worker(repo, command, i) for i in range(n)]
        return
    with ThreadPoolExecutor(1) as ex:
        future = ex.submit(take_runner, command.python, repo, secrets=secrets)
        try:
            copies = [Worker(repo, command, i) for i in range(n)]
        finally:
            runner = future.result() if future.exception() is None else None
            pool += [runner] if runner else []
        pool += copies
        if runner is None:
            raise future.exception()
    for w in copies:
        w.runner = runner


class RepairSession:
    """The evaluator's setup, shared by every phase of a patch search: ``workers`` private
    copies of ``repo``, the warm pytest fork server, the baseline localization (``loc``)
    and the checks a candidate must pass (``checks``).

    Use as a context manager. Entering raises RuntimeError (or OSError) when the tests
    cannot run; on a normal exit the idle fork server is kept warm for the next session,
    on an exception (KeyboardInterrupt included) every run is killed. Temp dirs are
    removed either way. Entering an entered session does nothing, so a caller may call
    ``__enter__()`` to handle the setup's errors, then use ``with``. ``mutant_timeout_s``
    caps each test stage, in seconds; ``deadline`` (``time.monotonic()``) bounds the
    baseline run. ``test_cmd``: a resolved command, or an argv for
    :func:`codur.testing.command.resolve`.

    Test selection (:mod:`codur.validate.selection`): with ``focus`` (failing test ids) the
    baseline runs those tests and their related test files, not the whole suite, and a
    candidate is judged by :func:`codur.validate.checks.selected_checks`; ``failing_before``
    names the tests that failed in a whole-suite run before any change (None: unknown, so
    the baseline runs the whole suite once more, in parallel, to learn them); ``suite_s`` is
    that run's time in seconds. :attr:`selection` is what localization ran (None: the whole
    suite), :attr:`suite` the project's collected suite (None: not collected, or not pytest).
    ``memory_mb``: each test run's address-space limit, MiB (None: none). ``policy``: the run's
    test policy (its ToolExecutor's :meth:`~codur.tools.executor.ToolExecutor.test_policy`),
    handed to every worker (default: none read-only, never cancelled). ``on_event`` gets
    the session's events: ``patch.suite`` (the suite collected, the first run's ties) and
    ``patch.localizing`` (a localization run's progress, every few seconds).
    """

    def __init__(self, repo: Path, *, test_cmd: list[str] | testcmd.TestCommand | None = None,
                 workers: int = CodurConfig.default("repair_workers"),
                 mutant_timeout_s: float = CodurConfig.default("mutant_timeout_s"), deadline: float | None = None,
                 focus: list[str] | None = None,
                 failing_before: list[str] | None = None, suite_s: float = 0.0, memory_mb: int | None = None,
                 on_event: Callable[[Event], object] = lambda event: None, policy: TestPolicy | None = None):
        if workers < 1:
            raise ValueError("workers must be >= 1")
        self.memory_mb = memory_mb
        self.policy = policy or TestPolicy(memory_mb=memory_mb)
        self.repo = Path(repo).resolve()
        self.command = test_cmd if isinstance(test_cmd, testcmd.TestCommand) else testcmd.resolve(self.repo, test_cmd)
        self.focus, self.failing_before, self.suite_s = list(focus or []), failing_before, suite_s
        self.selection: list[str] | None = None
        self.suite: Suite | None = None
        self.on_event = on_event
        self.n_workers, self.cap = workers, mutant_timeout_s
        if deadline is None:
            deadline = time.monotonic() + CodurConfig.default("patch_time_budget_s")
        self.deadline = deadline
        self.pool: list = []
        self.copies: list[Worker] = []
        self.loc: localize.Localization | None = None
        self.checks: Checks | None = None
        self.texts: dict[str, str] = {}
        self._tmp: Path | None = None

    def __enter__(self) -> RepairSession:
        if self._tmp is not None:  # entered already (to catch the setup's errors first)
            return self
        self._tmp = make_temp_dir("codur-repair-")
        try:
            secrets = origin_secrets(self.repo, allow_secrets=self.policy.allow_secrets)
            _start_workers(self.repo, self.command, self.n_workers, self.pool, secrets=secrets)
            self.copies = [w for w in self.pool if isinstance(w, Worker)]
            for copy in self.copies:
                copy.memory_mb = self.memory_mb
                copy.policy, copy.secrets = self.policy, secrets
                if not self.policy.allow_secrets:
                    blank_masked(copy.root)  # its tests read no credential file of the repo
            self._localize()
        except BaseException:
            self.close(keep=False)
            raise
        return self

    def _localize(self) -> None:
        """The baseline: localization and the checks (see :mod:`codur.validate.selection`).

        With focus tests (a pytest command), localization starts from them alone, with their
        coverage, while the project's suite is collected (:func:`codur.testing.suite.suite_of`)
        on another copy; then the baseline runs their own test files (those the suite collects,
        within :data:`OWN_TEST_BUDGET` cases, else the focus tests alone), plus the related
        test files of the suite only when the failing tests' own ranking is tied
        (:func:`codur.validate.localize.tied_at_top` over :data:`localize.TIE_LINES`). Without
        focus tests, or when they do not fail here, the whole suite runs."""
        select = None
        focus = [t for t in self.focus if (self.repo / file_of(t)).is_file()]
        if focus and self.command.is_pytest:
            first, suite = self._first_run(focus)
            if suite is not None:
                focus = suite.split(focus)[0] or focus
            select = self._selection(focus, first, suite)
        whole = select is not None and self.failing_before is None
        self.loc, plugin_free, seen = _baseline(self.repo, self.command, self.copies, self.cap, self.deadline,
                                                select=select, whole=whole, on_progress=self._progress,
                                                targets=focus if select is not None else None)
        if select is not None and not self.loc.failing:  # the focus ids did not match: the whole suite
            select = None
            self.loc, plugin_free, seen = _baseline(self.repo, self.command, self.copies, self.cap, self.deadline,
                                                    on_progress=self._progress)
        self.selection = select
        before = set(self.failing_before or ()) | {t for t, o in (seen or {}).items() if o == "failed"}
        assert self._tmp is not None
        baseline = Baseline(self.loc, plugin_free, selected=select is not None,
                            may_fail=frozenset(before - set(self.loc.failing)), suite_s=self.suite_s)
        self.checks = checks_for(baseline, self.command, self._tmp, self.cap)

    def _first_run(self, focus: list[str]) -> tuple[localize.Localization, Suite | None]:
        """The focus tests alone with coverage (on the first copy), and the project's suite
        (collected on the last copy meanwhile, or after on a single one)."""
        left = max(1.0, self.deadline - time.monotonic())
        with ThreadPoolExecutor(1) as ex:
            pending = (ex.submit(suite_of, self.repo, self.command, worker=self.copies[-1], timeout_s=left)
                       if len(self.copies) > 1 else None)
            first = localize.localize_faults(self.repo, self.command,
                                             test_timeout_s=min(self.cap, testcmd.TEST_TIMEOUT_S),
                                             run_timeout_s=left, worker=self.copies[0], select=focus,
                                             on_progress=self._progress)
            suite = pending.result() if pending is not None else suite_of(
                self.repo, self.command, worker=self.copies[0], timeout_s=max(1.0, self.deadline - time.monotonic()))
        self.suite = suite
        self.on_event(PatchSuite(collected=len(suite.ids) if suite else None,
                                 files=len(suite.counts) if suite else None, tied=localize.tied_at_top(first),
                                 seconds=round(first.elapsed_s, 3)))
        return first, suite

    def _selection(self, focus: list[str], first: localize.Localization, suite: Suite | None) -> list[str]:
        """What the baseline runs: the focus tests' own files that the suite collects and that
        fit :data:`OWN_TEST_BUDGET` (else the focus tests themselves; with no suite known, their
        files, which observe's run of the configured command ran), then, when ``first``'s
        ranking is tied, the suite's related test files."""
        own: list[str] = []
        for path in dict.fromkeys(file_of(t) for t in focus):
            fits = suite is None or (path in suite.counts and suite.counts[path] <= OWN_TEST_BUDGET)
            own += [path] if fits else [t for t in focus if file_of(t) == path]
        if suite is None or localize.tied_at_top(first) <= localize.TIE_LINES:
            return own
        return [*own, *related_test_files(self.repo, focus, first.failing_files, suite)]

    def _progress(self, done: int, collected: int, seconds: float) -> None:
        self.on_event(PatchLocalizing(tests_done=done, tests=collected, seconds=seconds))

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(keep=exc_type is None)

    def close(self, keep: bool = False) -> None:
        """Kill runs, delete the copies; keep the fork server warm when ``keep``."""
        for item in reversed(self.pool):  # workers first (kill runs), then the runner
            if isinstance(item, Runner) and keep:
                keep_runner(item)
            else:
                item.close()
        self.pool = []
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def judged(self, files: tuple[str, ...]) -> str:
        """Which tests judge a candidate changing ``files``, in words (for the summary)."""
        assert self.checks is not None
        failing = f"{len(self.checks.failing)} failing tests"
        if self.checks.gate is None:
            return f"{failing}, then the whole suite"
        return f"{failing}, {len(self.checks.tests_for(files))} covering tests, then the whole suite"

    def original(self, rel: str) -> str:
        """The original text of ``rel``, in its declared coding (read once; raises OSError,
        or ValueError when it does not decode: :func:`codur.validate.source.read_source`)."""
        if rel not in self.texts:
            self.texts[rel] = read_source(self.repo / rel, rel)
        return self.texts[rel]

    def search(self, queue: CandidateQueue, *, deadline: float, cancel: threading.Event,
               on_result: Callable[[object, Candidate, Evaluation], None] = lambda k, c, e: None,
               background: Callable[[object], bool] = lambda key: False, finish_by: float | None = None):
        """Run :func:`codur.validate.search.search` on this session's workers and checks (as many
        runs at once as the process's CPU budget gives; a likely winner in flight at ``deadline``
        may finish until ``finish_by``). Every candidate's file must already be in :attr:`texts`
        (see :meth:`original`)."""
        assert self.checks is not None
        return search(queue, self.copies, self.texts, self.checks, deadline=deadline, cancel=cancel,
                      on_result=on_result, background=background, finish_by=finish_by)


def _baseline(repo: Path, command: testcmd.TestCommand, copies: list[Worker], cap: float,
              deadline: float, *, select: list[str] | None = None,
              whole: bool = False, on_progress=None,
              targets: list[str] | None = None) -> tuple[localize.Localization, bool, dict[str, str] | None]:
    """Localize on the first copy (the tests ``select`` names, or all) while the last one checks,
    when the tests run in the fork server, whether they give the same outcomes without the
    installed pytest plugins (one copy: one after the other); with ``whole``, the last copy
    instead runs the whole suite, for the outcomes before any change. Returns (localization,
    plugin_free, the whole suite's outcomes or None). ``targets``: the tests the task is about
    (:func:`codur.validate.localize.score`: other failing tests are left out of the ranking)."""
    test_timeout = min(cap, testcmd.TEST_TIMEOUT_S)
    left = max(1.0, deadline - time.monotonic())
    env = {**dict(testcmd.NO_PLUGINS), "CODUR_REPAIR_TEST_TIMEOUT": str(test_timeout)}
    probe = None
    with ThreadPoolExecutor(1) as ex:
        if whole and len(copies) > 1:
            probe = ex.submit(localize.outcomes, copies[-1], command,
                              {"CODUR_REPAIR_TEST_TIMEOUT": str(test_timeout)}, left)
        elif not whole and copies[0].runner is not None and len(copies) > 1:
            probe = ex.submit(localize.outcomes, copies[-1], command, env, left, select)
        loc = localize.localize_faults(repo, command, test_timeout_s=test_timeout,
                                       run_timeout_s=left, worker=copies[0], select=select,
                                       on_progress=on_progress, targets=targets)
        if probe is not None:
            seen = probe.result()
        elif whole:
            seen = localize.outcomes(copies[0], command, {"CODUR_REPAIR_TEST_TIMEOUT": str(test_timeout)}, left)
        elif copies[0].runner is not None and loc.failing:
            # known durations by now: a test that hung must not hang as long again
            longest = max((t.duration for t in loc.tests if t.outcome == "passed"), default=0.0)
            env["CODUR_REPAIR_TEST_TIMEOUT"] = str(min(test_timeout, 2.0 + 5 * longest))
            seen = localize.outcomes(copies[0], command, env, left, select)
        else:
            seen = None
    if whole:
        return loc, False, seen
    kept = {t.nodeid: t.outcome for t in loc.tests}
    return loc, seen is not None and {k: v for k, v in seen.items() if k in kept} == kept, None
