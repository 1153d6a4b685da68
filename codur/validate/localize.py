"""Spectrum-based fault localization: Ochiai suspiciousness plus traceback frames.

The suite runs once with per-test line coverage (coverage.py dynamic contexts, through
the ``codur_repair_plugin`` pytest plugin). For a line s::

    ochiai(s) = failed(s) / sqrt(total_failed * (failed(s) + passed(s)))

(Abreu, Zoeteweij, van Gemund, "On the Accuracy of Spectrum-based Fault Localization",
2007). Lines run only at import time count as covered by every test, at half weight
(they carry the least information). Lines in the
failing tests' traceback frames get a boost, the innermost frame in the repo's own
code the most. Only the repository's own source is scored, never test files.

A test stopped by its time limit is a failing test like any other: the coverage it
collected until the interrupt counts under its name. Where the interrupt found it is
chance, so that line gets only half the frame boost; the loop around it does not end,
so that loop's header line (the innermost loop around the interrupted line, in the
innermost frame of the repo's code that is inside a loop) scores the best of its own
lines plus the whole boost: a hanging loop ranks its header first, its body next.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import json
import math
import os
import re
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from codur.sandbox.lifetime import temp_dir
from codur.sandbox.limits import MEMORY_ENV
from codur.testing import command as testcmd
from codur.testing.confine import scratch_root
from codur.testing.forkserver import can_fork_server
from codur.testing.ids import file_of, under
from codur.testing.report import TestRecord, TestRun, read_report
from codur.testing.runner import report_env
from codur.validate.failures import blame_loop, expected_raises, own_frames, relative
from codur.validate.localize_run import run_direct, run_forked
from codur.validate.source import is_source_file
from codur.validate.worker import TEST_TIMEOUT_EXIT, Worker

FRAME_BOOST = 0.3
IMPORT_WEIGHT = 0.5
#: Seconds between two progress reports of a localization run (``on_progress``).
PROGRESS_EVERY_S = 5.0
#: Lines that may share the best score before localization calls its ranking tied (see
#: :func:`tied_at_top`): then the tests related to the failing ones are run too, to break it.
TIE_LINES = 3
_FRAME_RE = re.compile(r'File "([^"]+\.py)", line (\d+)')


@dataclass(frozen=True)
class Localization:
    """Result of :func:`localize_faults`.

    ``scores`` maps (file relative to repo, line) -> suspiciousness (Ochiai, in [0, 1],
    plus the boosts of the module doc);
    ``suspicious`` is the same sorted best first. ``elapsed_s`` is the run's wall time.
    ``covering`` maps a source file to the passing tests that ran one of its lines (beyond
    import time): the tests an edit of that file can break; ``failing_files`` are the source
    files a failing test ran a line of (beyond import time); ``hung_loops`` the (file, header
    line) of the innermost loop each timed-out test was stopped in. ``root`` and ``lines``
    (the directory the run's paths are under, and path -> line -> ids of the tests that ran
    it) keep the spectrum for :func:`refocus`.
    """

    tests: tuple[TestRecord, ...]
    scores: dict[tuple[str, int], float] = field(default_factory=dict)
    elapsed_s: float = 0.0
    output: str = ""
    covering: dict[str, frozenset[str]] = field(default_factory=dict)
    failing_files: frozenset[str] = frozenset()
    hung_loops: frozenset[tuple[str, int]] = frozenset()
    root: Path | None = field(default=None, repr=False, compare=False)
    lines: dict[str, dict[int, list[str]]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def failing(self) -> list[str]:
        return [t.nodeid for t in self.tests if t.outcome == "failed"]

    @property
    def expected_raises(self) -> frozenset[str]:
        """Exception names the failing tests expected and did not see
        (:func:`expected_raises`)."""
        return expected_raises(t.message for t in self.tests if t.outcome == "failed")

    @property
    def suspicious(self) -> list[tuple[str, int, float]]:
        ranked = sorted(self.scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return [(f, line, round(s, 4)) for (f, line), s in ranked]


def tied_at_top(loc: Localization) -> int:
    """How many lines share ``loc``'s best score (0: nothing scored)."""
    values = list(loc.scores.values())
    if not values:
        return 0
    best = max(values)
    return sum(1 for v in values if v >= best - 1e-9)


class Progress:
    """Reports how far a test run is, every :data:`PROGRESS_EVERY_S` seconds, while it runs.

    ``report(done, collected, seconds)`` is called from a thread of its own (in the caller's
    context, so events reach the caller's run); the run's plugin writes the counts to
    :attr:`path` (``CODUR_REPAIR_PROGRESS``), a file in the scratch area every confined run
    sees. Use as a context manager around the run."""

    def __init__(self, report, every_s: float = PROGRESS_EVERY_S):
        self.report, self.every_s = report, every_s
        self.path = scratch_root() / "spool" / f"progress-{os.getpid()}-{threading.get_ident()}-{time.monotonic_ns()}"
        self._stop = threading.Event()
        self._start = time.monotonic()
        self._thread = threading.Thread(target=contextvars.copy_context().run, args=(self._loop,),
                                         name="codur-localize-progress", daemon=True)

    def counts(self) -> tuple[int, int]:
        """(tests done, tests collected) so far; (0, 0) before the run wrote any."""
        try:
            done, total = self.path.read_text().split()
            return int(done), int(total)
        except (OSError, ValueError):
            return 0, 0

    def _loop(self) -> None:
        while not self._stop.wait(self.every_s):
            self.report(*self.counts(), round(time.monotonic() - self._start, 1))

    def __enter__(self) -> Progress:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.path.unlink(missing_ok=True)


def ochiai(failed: int, passed: int, total_failed: int) -> float:
    """Ochiai suspiciousness of one line (0.0 when nothing failed or nothing covers it)."""
    if failed == 0 or total_failed == 0:
        return 0.0
    return failed / math.sqrt(total_failed * (failed + passed))


def aimed_at(nodeid: str, targets: list[str]) -> bool:
    """``nodeid`` is one of ``targets`` (test ids, or files and classes holding tests)."""
    return any(under(nodeid, t) for t in targets)


def score(repo: Path, run: TestRun, targets: list[str] | None = None) -> Localization:
    """Turn the plugin's report (``run``, :func:`codur.testing.report.read_report`) into a
    :class:`Localization` for ``repo``. With ``targets`` (the tests the task is about), a test
    that fails and is not one of them is left out (:func:`aimed_at`): a failure that was
    there before and is not the task's (a network test in the sandbox, an old failure)
    neither steers the ranking nor becomes a test a candidate must fix. Targets that match no
    failing test of the run (renamed since) leave every failure in."""
    repo = repo.resolve()
    failing = [n for n, rec in run.tests.items() if rec.outcome == "failed"]
    if targets is not None and not any(aimed_at(n, targets) for n in failing):
        targets = None
    tests = [dataclasses.replace(rec, path=(relative(repo, rec.path) if rec.path else None) or "")
             for nodeid, rec in run.tests.items()
             if targets is None or rec.outcome != "failed" or aimed_at(nodeid, targets)]
    outcome = {t.nodeid: t.outcome for t in tests}
    ran = [t.nodeid for t in tests if t.outcome != "skipped"]
    scores, covering, failing_files = _spectrum(repo, run.lines, outcome, ran)
    failed = [t for t in tests if t.outcome == "failed"]
    hung_loops = _boost_frames(repo, scores, failed)
    return Localization(tuple(tests), scores, covering={f: frozenset(ids) for f, ids in covering.items()},
                        failing_files=frozenset(failing_files), hung_loops=frozenset(hung_loops),
                        root=repo, lines=run.lines)


def refocus(loc: Localization, failing: frozenset[str]) -> dict[tuple[str, int], float]:
    """The suspiciousness of ``loc``'s lines with only ``failing`` (some of its failing tests)
    counted as failing and its other failing tests left out: where the fault behind the
    tests a partial fix left failing lies (ITER, Ye & Monperrus, ICSE 2024, localizes again
    after each partial patch; here from the baseline's spectrum, with no new run). {} when
    ``loc`` kept no spectrum or none of ``failing`` is one of its failing tests."""
    if loc.root is None or not loc.lines or not failing & set(loc.failing):
        return {}
    tests = [t for t in loc.tests if t.outcome != "failed" or t.nodeid in failing]
    outcome = {t.nodeid: t.outcome for t in tests}
    ran = [t.nodeid for t in tests if t.outcome != "skipped"]
    scores, _, _ = _spectrum(loc.root, loc.lines, outcome, ran)
    _boost_frames(loc.root, scores, [t for t in tests if t.outcome == "failed"])
    return scores


def _spectrum(repo: Path, lines: dict[str, dict[int, list[str]]], outcome: dict[str, str],
              ran: list[str]) -> tuple[dict[tuple[str, int], float], dict[str, set[str]], set[str]]:
    """The Ochiai score of every source line of ``repo`` the run covered (``lines``: path ->
    line -> the ids of the tests that ran it, "" for import time), given each test's
    ``outcome`` and the tests that ``ran``. Returns (scores, file -> the passing tests that
    ran it, the files a failing test ran)."""
    total_failed = sum(outcome[n] == "failed" for n in ran)
    scores: dict[tuple[str, int], float] = {}
    covering: dict[str, set[str]] = defaultdict(set)
    failing_files: set[str] = set()
    for path, by_line in lines.items():
        rel = relative(repo, path)
        if rel is None or not is_source_file(rel):
            continue
        for line, contexts in by_line.items():
            ctx = set(contexts)
            covering[rel].update(c for c in ctx if outcome.get(c) == "passed")
            if any(outcome.get(c) == "failed" for c in ctx):
                failing_files.add(rel)
            cover = ran if "" in ctx else [n for n in ran if n in ctx]
            failed = sum(outcome[n] == "failed" for n in cover)
            value = ochiai(failed, len(cover) - failed, total_failed)
            if ctx == {""}:  # run only at import time: covered by every test, says little
                value *= IMPORT_WEIGHT
            if value:
                scores[(rel, int(line))] = value
    return scores, covering, failing_files


def _boost_frames(repo: Path, scores: dict[tuple[str, int], float], failed: list[TestRecord]) -> set[tuple[str, int]]:
    """Add to ``scores`` the boost of the lines in the ``failed`` tests' traceback frames (the
    innermost the most, see the module doc); returns the (file, header line) of the loops the
    timed-out ones were stopped in (:func:`codur.validate.failures.blame_loop`)."""
    hung_loops: set[tuple[str, int]] = set()
    for rec in failed:
        hang = own_frames(repo, rec.hang or rec.frames) if rec.timed_out else None
        seen = set()
        for depth, key in enumerate(reversed(own_frames(repo, rec.frames))):
            if key not in seen:
                seen.add(key)
                boost = FRAME_BOOST * (1.0 if depth == 0 and hang is None else 0.5) / len(failed)
                scores[key] = scores.get(key, 0.0) + boost
        if hang is not None:
            loop = blame_loop(repo, hang, scores, FRAME_BOOST / len(failed))
            if loop is not None:
                hung_loops.add(loop)
    return hung_loops


def localize_faults(repo: Path, command: testcmd.TestCommand | None = None, *,
                    test_timeout_s: float = 20.0, run_timeout_s: float = 600.0,
                    worker: Worker | None = None, select: list[str] | None = None,
                    memory_mb: int | None = None, on_progress=None,
                    targets: list[str] | None = None, allow_secrets: bool = False) -> Localization:
    """Run the suite of ``repo`` once and rank its source lines by suspiciousness.

    ``command`` defaults to the repo's (:func:`codur.testing.command.resolve`). ``select``
    (test ids or files, pytest commands only) runs just those tests (see
    :mod:`codur.validate.selection`). Each test is stopped after
    ``test_timeout_s`` seconds (counted as failed); the whole run after ``run_timeout_s``.
    A pytest suite runs in the given :class:`Worker` (a copy of ``repo``), or else in
    ``repo`` through the warm pytest fork server (started if needed, kept for the next
    call), which saves the interpreter and pytest start-up. ``repo`` is never written to
    (no bytecode, no pytest cache). ``memory_mb``: the run's address-space limit, MiB, when
    it runs in ``repo`` (a worker has its own). ``on_progress(done, collected, seconds)``:
    called every :data:`PROGRESS_EVERY_S` seconds while a pytest suite runs (see
    :class:`Progress`). ``targets``: the tests the task is about (see :func:`score`).
    ``allow_secrets``: a run in ``repo`` itself lets its tests read the repo's credential files
    (``.env``, keys, ``.git/config``'s tokens), as the run's tools may (else they read as empty). Raises
    RuntimeError when the run yields no report (pytest missing, run over ``run_timeout_s``).
    """
    repo = Path(repo).resolve()
    command = command or testcmd.resolve(repo, None)
    start = time.monotonic()
    progress = Progress(on_progress) if on_progress is not None and command.is_pytest else None
    with temp_dir("codur-localize-") as tmp, progress or contextlib.nullcontext():
        out = tmp / "report.json"
        root = worker.root if worker is not None and command.is_pytest else repo
        env = {**report_env(out, coverage=True), "CODUR_REPAIR_SOURCE": str(root),
               "CODUR_REPAIR_TEST_TIMEOUT": str(test_timeout_s),
               "CODUR_REPAIR_TIMEOUT_EXIT": str(TEST_TIMEOUT_EXIT)}
        if memory_mb:
            env[MEMORY_ENV] = str(memory_mb)
        if progress is not None:
            env["CODUR_REPAIR_PROGRESS"] = str(progress.path)
        args = [*_selected(command, select if command.is_pytest else None, env, tmp),
                "-p", testcmd.PLUGIN, "-p", "no:cacheprovider"]
        report = None
        if root is not repo:
            run = worker.run(args, run_timeout_s, env)
            output = f"exit {-9 if run.exit_code is None else run.exit_code} ({run.status})"
        elif can_fork_server(command):
            output = run_forked(command, repo, args, env, run_timeout_s, allow_secrets=allow_secrets)
        else:
            output, report = run_direct(command, repo, args, env, run_timeout_s, allow_secrets=allow_secrets)
        if command.is_pytest:
            report = read_report(out)
            if report is None:
                raise RuntimeError(f"test run produced no report: {output}")
    loc = score(root, report, targets)
    return dataclasses.replace(loc, elapsed_s=time.monotonic() - start, output=output)


def _selected(command: testcmd.TestCommand, select: list[str] | None, env: dict[str, str],
              folder: Path) -> list[str]:
    """The pytest arguments of a run of the tests ``select`` names (test ids or files; None:
    every test): the command's own, else the files holding them. The ids reach the repair
    plugin through ``env`` (``CODUR_REPAIR_SELECT``, a file written in ``folder``)."""
    args = list(command.pytest_args or ())
    if select:
        env["CODUR_REPAIR_SELECT"] = str(folder / "select.json")
        Path(env["CODUR_REPAIR_SELECT"]).write_text(json.dumps(select))
        args = args or list(dict.fromkeys(file_of(s) for s in select))  # collect only those files
    return args


def outcomes(worker: Worker, command: testcmd.TestCommand, env: dict[str, str],
             timeout_s: float, select: list[str] | None = None) -> dict[str, str] | None:
    """Outcome ("passed"/"failed"/"skipped") of every test of a pytest suite run in ``worker``
    with extra ``env`` (only the tests ``select`` names, when given); None if the run gave no
    report (crash, over ``timeout_s`` seconds).
    """
    with temp_dir("codur-outcomes-") as tmp:
        out = tmp / "report.json"
        env = {**env, **report_env(out)}
        args = _selected(command, select, env, tmp)
        worker.run([*args, "--assert=plain", "-p", testcmd.PLUGIN, "-p",
                    "no:cacheprovider"], timeout_s, env)
        run = read_report(out)
        return None if run is None else run.outcomes()
