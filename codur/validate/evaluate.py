"""The one evaluator of candidate patches: one candidate, in one worker's copy, judged by the checks.

Candidates come from any source (mutants, model samples, mutants of a model's near
miss, the union of two near misses); each names the files it changes (one, or several)
and how it rewrites them. Every candidate runs in a worker's
private copy: the failing tests first, then (only if they pass) the full suite, each
stage under a timeout. Acceptance: the failing tests pass and the tests that passed
before still pass (a *plausible patch*). Before any test runs, a candidate that edits a test,
empties a function or class, guts a function or deletes more than a bounded number of lines
is *refused*, whatever its tests would say (:func:`codur.validate.footprint.refusal`; status
"refused", ``reason`` naming what it did), and so is one with a refused anti-pattern (code left
unreachable, a duplicated block, an unconditional early exit:
:mod:`codur.validate.antipatterns`). A plausible candidate with a held-back anti-pattern (a
deleted guard, ``raise`` or call, a weakened guard, a negated or constant condition) is *held* (status "held",
``held`` its findings): the search goes on for a better one (:mod:`codur.patch.pipeline`).

The queue and the search over a pool of workers: :mod:`codur.validate.search`.

A candidate with ``probe = True`` (a model sample, a probed mutant) runs its failing tests without
stopping at the first failure and with a per-test report: when only some pass, the
whole suite runs once more to check that it broke no passing test, and the candidate
is a *near miss* (status "near_miss", ``fixed`` = how many failing tests it fixed).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Protocol

from codur.testing.report import TestRun
from codur.testing.runner import report_env
from codur.validate import antipatterns
from codur.validate.antipatterns import Finding
from codur.validate.footprint import refusal
from codur.validate.source import source_bytes
from codur.validate.worker import Worker


class CandidateVerdict(StrEnum):
    """What the tests said about one candidate (:attr:`Evaluation.status`)."""

    PLAUSIBLE = "plausible"  # the failing tests pass and the tests that passed still pass
    NEAR_MISS = "near_miss"  # a probed candidate fixed some failing tests and broke none
    FAILED = "failed"
    TIMEOUT = "timeout"  # a test stage ran past its limit
    ABORTED = "aborted"  # killed by the search (a better candidate won, the deadline passed)
    REFUSED = "refused"  # not run: it edits a test, deletes too much, or has a refused anti-pattern
    HELD = "held"  # plausible, but held back by an anti-pattern (:mod:`codur.validate.antipatterns`)


class Candidate(Protocol):
    """A candidate patch. ``probe``: look for near misses (see module doc); an optional
    ``feedback = False`` says no model reads its failures (see :attr:`Checks.sweep`).

    A one-file candidate has ``file`` and ``apply(text)``. A candidate that changes
    several files also has ``files`` (every file it changes, ``file`` first) and
    ``apply_files(originals)`` (``{file: original text}`` of those files -> their new
    texts); :func:`files_of` and :func:`apply_files` give both for either kind.
    """

    file: str
    probe: bool

    def apply(self, text: str) -> str:
        """The new text of ``file`` given its original ``text``."""
        ...


def files_of(candidate: Candidate) -> tuple[str, ...]:
    """The files ``candidate`` changes: its ``files``, else its one ``file``."""
    return tuple(getattr(candidate, "files", None) or (candidate.file,))


def apply_files(candidate: Candidate, originals: dict[str, str]) -> dict[str, str]:
    """The new text of every file ``candidate`` changes, given ``originals`` (path ->
    original text, holding at least :func:`files_of`). Raises what the candidate raises."""
    many = getattr(candidate, "apply_files", None)
    if many is not None:
        return many(originals)
    return {candidate.file: candidate.apply(originals[candidate.file])}


@dataclass(frozen=True)
class Stage:
    """One test run of a candidate: pytest ``args``, extra ``env``, ``timeout_s`` seconds.
    ``report``: the run writes each test's outcome (the repair plugin must be loaded).
    ``may_fail``: with a report, the run passes when every failing test is one of these
    (tests that failed before any change and are not the candidate's to fix)."""

    args: tuple[str, ...]
    timeout_s: float
    env: tuple[tuple[str, str], ...] = ()
    report: bool = False
    may_fail: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Checks:
    """How candidates are judged.

    ``stages``: the acceptance runs (failing tests with ``-x``, then the whole suite).
    ``probe``: the failing tests with a report and no ``-x``; ``guard``: the whole suite
    with a report (both None for a non-pytest command); ``sweep``: the probe with assertions
    left plain (no rewriting: cheaper, and the values compared only matter to a model), for a
    probed candidate with ``feedback = False`` (a mutant). ``failing`` / ``passing``: the
    baseline's test ids.

    With test selection (:mod:`codur.validate.selection`), ``covering`` maps a file to the
    passing tests that cover it, and a candidate's acceptance runs are its failing tests,
    the covering tests of its files (``covered`` builds that stage), then ``gate``, the
    whole suite; its guard is the covering run with a report.
    """

    stages: list[Stage]
    probe: Stage | None = None
    guard: Stage | None = None
    failing: frozenset[str] = frozenset()
    passing: frozenset[str] = frozenset()
    covering: dict[str, frozenset[str]] = field(default_factory=dict)
    gate: Stage | None = None
    covered: Callable[[frozenset[str], bool], Stage] | None = None
    sweep: Stage | None = None

    def tests_for(self, files: tuple[str, ...]) -> frozenset[str]:
        """The passing tests that cover any of ``files`` (selection only; else empty)."""
        return frozenset().union(*(self.covering.get(f, frozenset()) for f in files))

    def stages_for(self, files: tuple[str, ...]) -> list[Stage]:
        """The acceptance runs of a candidate changing ``files``."""
        if self.gate is None or self.covered is None:
            return self.stages
        tests = self.tests_for(files)
        return [self.stages[0], *([self.covered(tests, False)] if tests else []), self.gate]

    def guard_for(self, files: tuple[str, ...], first_break: bool = False) -> tuple[Stage | None, frozenset[str]]:
        """The near-miss guard of a candidate changing ``files`` and the passing tests it must
        keep passing. ``first_break``: under selection, the guard stops at the first test it
        breaks (``-x``; its tests all passed before any change, so one failure is the verdict):
        for a candidate whose broken tests no model reads (a mutant), one break costs one
        test, not the covering tests' whole run."""
        if self.gate is None or self.covered is None:
            return self.guard, self.passing
        tests = self.tests_for(files)
        if not tests:
            return None, tests
        stage = self.covered(tests, True)
        return (replace(stage, args=(*stage.args, "-x")) if first_break else stage), tests


@dataclass(frozen=True)
class Evaluation:
    """``status``: the :class:`CandidateVerdict`;
    ``fixed``: failing tests that pass (probed candidates only); ``seconds`` of wall time.

    What the tests said about a probed candidate that is not plausible (the feedback of
    conversational sampling, :mod:`codur.patch.sampling`): ``failures``, (test id,
    exception) of the failing tests it leaves failing; ``broke``, the same of tests that
    passed before it and fail with it. At most :data:`MAX_FAILURES` each; the message is
    pytest's short form of the exception ("" when the test run gave none). ``reason``: why a
    refused candidate was refused (``edited tests/test_x.py``, ``emptied parse()``), else "".
    ``fixed_tests``: the ids of the failing tests a probed candidate fixed (a near miss's
    share of the fix, what :mod:`codur.patch.chain` joins). ``held``: the held-back
    anti-patterns of the candidate (:class:`codur.validate.antipatterns.Finding`), whatever its
    status; a plausible one with any is "held".
    """

    status: CandidateVerdict
    fixed: int = 0
    seconds: float = 0.0
    failures: tuple[tuple[str, str], ...] = ()
    broke: tuple[tuple[str, str], ...] = ()
    reason: str = ""
    fixed_tests: frozenset[str] = frozenset()
    held: tuple[Finding, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", CandidateVerdict(self.status))  # a worker's run status is a plain word


#: Failing tests an :class:`Evaluation` keeps the exception of.
MAX_FAILURES = 3


def _failed(run: TestRun, tests) -> tuple[tuple[str, str], ...]:
    """(test id, message) of ``tests`` that did not pass in ``run``, sorted, at most MAX_FAILURES."""
    seen = run.tests
    return tuple((t, seen[t].message if t in seen and seen[t].outcome == "failed" else "") for t in sorted(tests)
                 if t not in seen or seen[t].outcome != "passed")[:MAX_FAILURES]


def _reported(worker: Worker, stage: Stage) -> TestRun:
    """Run ``stage`` with the plugin's report: the run with its tests ({} when it wrote none)."""
    out = worker.tmp / "report.json"
    out.unlink(missing_ok=True)
    return worker.run(list(stage.args), stage.timeout_s, {**dict(stage.env), **report_env(out)}, report=out)


def _passes(worker: Worker, stage: Stage) -> str:
    """Run ``stage``: "passed", "failed", "timeout" or "aborted" (a stage with ``may_fail``
    passes when only those tests fail)."""
    if not stage.may_fail:
        return worker.run(list(stage.args), stage.timeout_s, dict(stage.env)).status
    run = _reported(worker, stage)
    if run.status in ("aborted", "timeout") or not run.tests:
        return run.status if run.status != "passed" else "failed"
    return "failed" if any(t not in stage.may_fail for t in run.failed) else "passed"


def evaluate(worker: Worker, candidate: Candidate, originals: dict[str, str] | str, checks: Checks,
             on_first_pass: Callable[[], None] = lambda: None) -> Evaluation:
    """Write every file of ``candidate`` in the worker's copy, run the checks, restore them all.

    ``originals``: path -> original text of the candidate's files (:func:`files_of`), or
    the one file's text. ``on_first_pass`` is called once the failing tests passed. A
    candidate whose ``apply`` / ``apply_files`` raises counts as "failed"; one the footprint
    check or a refused anti-pattern refuses is "refused" and runs no test; a plausible one with a
    held-back anti-pattern is "held". The files are restored whatever happens (a
    failed write, a test run that raises).
    """
    start = time.monotonic()
    if isinstance(originals, str):
        originals = {candidate.file: originals}
    try:
        new = apply_files(candidate, originals)
        if not new.keys() <= originals.keys():  # a file the search holds no original of: nothing to restore
            return Evaluation(CandidateVerdict.FAILED)
        data = {rel: source_bytes(text, rel) for rel, text in new.items()}  # in the declared coding
    except (ValueError, SyntaxError, KeyError):
        return Evaluation(CandidateVerdict.FAILED)
    findings = antipatterns.judge_files(originals, new)
    if why := refusal(originals, new) or antipatterns.refusal(findings):
        return Evaluation(CandidateVerdict.REFUSED, seconds=time.monotonic() - start, reason=why)
    try:
        for rel in new:
            (worker.root / rel).write_bytes(data[rel])
        verdict = _judge(worker, candidate, checks, on_first_pass, start)
        if not findings:
            return verdict
        held = verdict.status is CandidateVerdict.PLAUSIBLE
        return replace(verdict, status=CandidateVerdict.HELD if held else verdict.status, held=tuple(findings))
    finally:
        for rel in new:
            (worker.root / rel).write_bytes(source_bytes(originals[rel], rel))


def _judge(worker: Worker, candidate: Candidate, checks: Checks, on_first_pass: Callable[[], None],
           start: float) -> Evaluation:
    """The checks of a candidate written in the worker's copy: a probed one's failing tests
    first (:func:`_probe`), then the acceptance stages in order, up to the first that does
    not pass. ``start``: the evaluation's ``time.monotonic()`` start."""
    files = files_of(candidate)
    stages, fixed, first_pass = checks.stages_for(files), 0, on_first_pass
    if candidate.probe and checks.probe is not None:
        quiet = not getattr(candidate, "feedback", True) and checks.sweep is not None
        verdict = _probe(worker, checks, files, start, quiet)
        if verdict is not None:
            return verdict
        on_first_pass()
        stages, fixed, first_pass = stages[1:], len(checks.failing), lambda: None
    for i, stage in enumerate(stages):
        status = _passes(worker, stage)
        if status != "passed":
            return Evaluation(status, fixed, time.monotonic() - start)
        if i == 0:
            first_pass()
    return Evaluation(CandidateVerdict.PLAUSIBLE, len(checks.failing), time.monotonic() - start)


def _probe(worker: Worker, checks: Checks, files: tuple[str, ...], start: float, quiet: bool) -> Evaluation | None:
    """Run a probed candidate's failing tests with a report (``checks.probe``, or
    ``checks.sweep`` when ``quiet``: a candidate whose failures no model reads): None when they
    all pass (the acceptance stages go on), else its verdict. A candidate that fixed some and
    broke none of the passing tests its files' guard runs (:meth:`Checks.guard_for`; when
    ``quiet``, up to the first break) is a near miss; with no guard to run, under test
    selection, one that fixed some is one too. A guard run killed before its end (the
    search's deadline, a better candidate won) leaves the candidate "aborted", so the search
    keeps it untried instead of calling it failed."""
    run = _reported(worker, checks.sweep if quiet and checks.sweep is not None else checks.probe)
    failures = _failed(run, checks.failing)
    if run.status in (CandidateVerdict.ABORTED, CandidateVerdict.TIMEOUT):
        timed_out = run.status == CandidateVerdict.TIMEOUT
        return Evaluation(run.status, 0, time.monotonic() - start, failures if timed_out else ())
    passed = set(run.passed)
    fixed_tests = frozenset(t for t in checks.failing if t in passed)
    fixed = len(fixed_tests)
    if fixed == len(checks.failing) and run.status == "passed":
        return None
    guard, keep = checks.guard_for(files, first_break=quiet)
    if fixed == 0 or (guard is None and checks.gate is None):
        return Evaluation(CandidateVerdict.FAILED, fixed, time.monotonic() - start, failures)
    if guard is None:  # selection, and no passing test covers the change: nothing to break
        return Evaluation(CandidateVerdict.NEAR_MISS, fixed, time.monotonic() - start, failures,
                          fixed_tests=fixed_tests)
    run = _reported(worker, guard)
    if run.status == CandidateVerdict.ABORTED:  # killed (the phase's deadline): not judged, it may run later
        return Evaluation(CandidateVerdict.ABORTED, fixed, time.monotonic() - start, failures, fixed_tests=fixed_tests)
    broke = _failed(run, keep) if run.tests else ()
    near = run.status != CandidateVerdict.TIMEOUT and not broke and run.tests
    verdict = CandidateVerdict.NEAR_MISS if near else CandidateVerdict.FAILED
    return Evaluation(verdict, fixed, time.monotonic() - start, failures, broke, fixed_tests=fixed_tests)
