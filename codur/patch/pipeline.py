"""The candidate-patch pipeline: every fixer's candidates judged by one evaluator, cheapest first.

For a fix task with failing tests (see AGENTIC_LOGIC.md, "The candidate-patch pipeline"):

1. **Localize.** The repair session copies the repo into private workers, starts the
   warm pytest fork server and runs the suite once with per-test coverage (Ochiai).
2. **The fixers' phases**, in cost order: each pipeline fixer of the settings' ``fixers``, by
   its record in :data:`codur.core.contracts.FIXERS`, runs its phase function
   ``(pipeline, session, run) -> SearchOutcome | None``: mutation under a time box and the
   model samples (:mod:`codur.patch.phases`), then the hybrid of near misses
   (:mod:`codur.patch.hybrid`). A phase searches its candidates with :meth:`PatchPipeline.search`;
   the phases share a :class:`codur.patch.contracts.PhaseRun`.
3. **The rest.** The candidates a phase left untried (the mutants past the time box that the
   sampling phase did not reach) are tested on every worker once every fixer had its turn
   (phase ``"<fixer> (rest)"``), until the search budget runs out.

The first plausible patch wins (failing tests pass, passing tests still pass). A candidate
that edits a test or deletes too much is refused before its tests run
(:mod:`codur.repair.footprint`); the result lists what was refused (``refused``). A
candidate may change several files; nothing in the repo is written here: the result
carries the diff of every file, and the graph's patch node applies it through the
ToolExecutor. What is left unsolved goes to the tool-loop agent,
with the best near miss as context.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel

from codur.core import contracts
from codur.core.contracts import PatchStatus
from codur.core.events import Event
from codur.core.events.patch import PatchCandidate, PatchDone, PatchFound, PatchLocalized, PatchPhase, PatchStart
from codur.patch import ranking
from codur.patch.contracts import PatchResult, PatchSettings, PhaseRun, SearchEnd
from codur.patch.conversation import Judged
from codur.patch.splice import FunctionSpan
from codur.repair.evaluate import Candidate, CandidateVerdict, Evaluation, apply_files, files_of
from codur.repair.patch import unified_diffs
from codur.repair.search import CandidateQueue, SearchOutcome
from codur.repair.session import RepairSession
from codur.testing.command import TestCommand
from codur.tools.executor import TestPolicy

OnEvent = Callable[[Event], None]


#: The verdicts of a sample the conversational feedback answers (a plausible one ends the search).
_JUDGED = (CandidateVerdict.FAILED, CandidateVerdict.NEAR_MISS, CandidateVerdict.TIMEOUT)


class PatchPipeline:
    """Runs the fixers in cost order on one repair session.

    Args:
        repo: the repository (never written).
        settings: how to search (:class:`PatchSettings`).
        models: the chat models that sample patches (the actor role's fallback chain), or
            a function returning them, called only when sampling starts (so a bug fixed by
            the mutation search never starts the embedded model).
        failures: the failing tests' report shown to the model (ids, short tracebacks).
        task: the user's request, shown to the model (it often describes the symptom).
        test_cmd: the repo's test command (resolved, or an argv; None: the default one).
        deadline: ``time.monotonic()`` by which the whole search ends (default:
            ``settings.time_budget_s`` from now).
        cancel: set to stop (status "cancelled").
        over_budget: asked after each model sample; True stops sampling (status ``budget``): the run's
            limits, which read its usage ledger (every sample recorded there).
        on_event: progress events (``patch.*``).
        focus, failing_before, suite_s: test selection (see :class:`codur.repair.session.RepairSession`):
            the failing tests to start from, the tests that failed in the whole suite before
            any change (None: unknown), and that run's seconds. No focus: the whole suite.
        policy: the run's test policy (:meth:`codur.tools.executor.ToolExecutor.test_policy`),
            handed to every candidate worker (default: none).

    A fixer's phase reads the settings' figures here (``fixers``, ``models``, ``deadline``,
    ``samples``...), adds to what the search found (``near``, ``judged``, ``mutant_near``,
    ``llm_calls``, ``tokens``, ``mutants`` queued; ``budget_hit`` when ``over_budget`` said so) and tests
    candidates with :meth:`search`.
    """

    def __init__(self, repo, settings: PatchSettings, *,
                 models: list[BaseChatModel] | Callable[[], list[BaseChatModel]] | None = None,
                 failures: str = "", task: str = "", test_cmd: list[str] | TestCommand | None = None,
                 deadline: float | None = None, cancel: threading.Event | None = None,
                 over_budget: Callable[[], bool] = lambda: False, on_event: OnEvent | None = None,
                 focus: list[str] | None = None, failing_before: list[str] | None = None,
                 suite_s: float = 0.0, policy: TestPolicy | None = None) -> None:
        self.repo, self.settings, self.fixers, self.models = repo, settings, tuple(settings.fixers), models
        self.failures, self.workers = failures, settings.workers
        self.time_box_s, self.samples = settings.time_box_s, settings.samples
        self.deadline = deadline if deadline is not None else time.monotonic() + settings.time_budget_s
        self.cancel = cancel or threading.Event()
        self.policy = policy
        self.over_budget, self.emit = over_budget, on_event or (lambda e: None)
        self.max_mutants, self.max_lines, self.test_cmd = settings.max_mutants, settings.max_lines, test_cmd
        self.sample_format, self.task = settings.sample_format, task
        self.focus, self.failing_before, self.suite_s = focus, failing_before, suite_s
        self.memory_mb, self.max_pairs = settings.memory_mb, settings.max_pairs
        self.mutant_timeout_s = settings.mutant_timeout_s
        self.tried: dict[str, int] = dict.fromkeys((f.name for f in contracts.FIXERS if f.phase), 0)
        self.near: list[tuple[Any, int]] = []  # near misses of every fixer, with the failing tests they fixed
        self.judged: list[Judged] = []  # what the tests said about the samples (conversational feedback)
        self.mutant_near: list[tuple[Any, Evaluation]] = []  # near-miss mutants, with their verdicts
        self.ranked: list[tuple[FunctionSpan, float]] = []
        self.refused: list[str] = []  # why each refused candidate was refused (codur.repair.footprint)
        self.tokens = self.llm_calls = 0
        self.mutants = 0  # the mutants the mutation phase queued (the result's SearchEnd)
        self.budget_hit = False

    # -- the phases --------------------------------------------------------------------

    def run(self) -> PatchResult:
        """Search; returns a :class:`PatchResult` (errors of the test runs become status
        "error"). KeyboardInterrupt propagates after every test run is killed."""
        start = time.monotonic()
        phases: dict[str, float] = {}
        self.emit(PatchStart(fixers=list(self.fixers), workers=self.workers))
        session = RepairSession(self.repo, test_cmd=self.test_cmd, workers=self.workers, deadline=self.deadline,
                                mutant_timeout_s=self.mutant_timeout_s,
                                focus=self.focus, failing_before=self.failing_before, suite_s=self.suite_s,
                                memory_mb=self.memory_mb, on_event=self.emit, policy=self.policy)
        try:
            session.__enter__()
        except (OSError, RuntimeError) as exc:
            return self._end(PatchResult(PatchStatus.ERROR, message=f"could not run the tests: {exc}"), start, phases)
        with session:
            loc = session.loc
            assert loc is not None
            phases["localize"] = round(time.monotonic() - start, 3)
            self.ranked = ranking.rank_functions(loc.scores, session.original, max_lines=self.max_lines)
            info = {"failing": loc.failing, "suspicious": loc.suspicious[:10],
                    "functions": ranking.summary(self.ranked)}
            self.emit(PatchLocalized(failing_tests=loc.failing[:20], suspicious=loc.suspicious[:5],
                                      functions=info["functions"][:5], elapsed_s=phases["localize"],
                                      tests_run=len(loc.tests), selection=session.selection is not None))
            if not loc.failing:
                return self._end(PatchResult(PatchStatus.NO_FAILING_TESTS, message="no failing tests", **info),
                                 start, phases)
            try:
                outcome = self._phases(session, phases)
            except (OSError, RuntimeError) as exc:  # the test runner died mid-search
                return self._end(PatchResult(PatchStatus.ERROR, message=f"the test runs failed: {exc}", **info),
                                 start, phases)
            if outcome is not None and outcome.best is not None:
                best = outcome.best
                files = list(files_of(best))
                provenance = {**best.provenance, "judged": session.judged(tuple(files))}
                result = PatchResult(PatchStatus.PATCHED, self._diff(session, best), best.file, files, best.label,
                                     best.provenance["source"], provenance, **info)
                self.emit(PatchFound(label=best.label, provenance=result.provenance, diff=result.diff))
                return self._end(result, start, phases, session)
            status = (PatchStatus.CANCELLED if self.cancel.is_set() else PatchStatus.BUDGET if self.budget_hit
                      or time.monotonic() > self.deadline else PatchStatus.NOT_FOUND)
            end = SearchEnd.of(status, self.settings, tried=sum(self.tried.values()), mutants=self.mutants,
                               token_budget=self.budget_hit)
            return self._end(PatchResult(status, message=self._why(status), end=end, **info), start, phases, session)

    def _phases(self, session: RepairSession, phases: dict[str, float]) -> SearchOutcome | None:
        """Each pipeline fixer's phase in cost order, then the candidates they left untried; the
        first outcome with a plausible patch, else the last one (None: nothing was tried)."""
        run, outcome = PhaseRun(phases), None
        for fixer in contracts.FIXERS:  # read now: a fixer is its record there
            if fixer.phase and fixer.name in self.fixers:
                outcome = fixer.phase_function()(self, session, run) or outcome
                if outcome is not None and outcome.best is not None:
                    return outcome
        for source, left in run.untried.items():
            if left and not self.stopped():
                outcome = self.search(session, source, CandidateQueue(left, closed=True), self.deadline, phases,
                                      phase=f"{source} (rest)")
                if outcome.best is not None:
                    return outcome
        return outcome

    def search(self, session: RepairSession, source: str, queue: CandidateQueue, deadline: float,
               phases: dict[str, float], *, phase: str = "", announce: bool = True,
               background: Callable[[Any], bool] = lambda key: False,
               on_hang: Callable[[], None] = lambda: None) -> SearchOutcome:
        """Test ``queue``'s candidates (each counted, and its near miss kept, under its
        ``provenance["source"]``, else ``source``) on the workers until ``deadline``
        (``time.monotonic()``); the seconds add to ``phases[phase or source]``. ``announce``: emit
        the ``patch.phase`` event; ``background(key)``: the candidate is a backfill, given the
        cores the embedded model leaves (:class:`codur.core.cpu.CpuBudget`); ``on_hang()``: called
        when a backfill timed out."""
        phase = phase or source
        if announce:
            self.emit(PatchPhase(phase=phase, candidates=len(queue)))
        start = time.monotonic()
        failing = len(session.loc.failing) if session.loc else 0

        def on_result(key: Any, candidate: Any, evaluation: Evaluation) -> None:
            own = candidate.provenance.get("source", source)  # a backfilled mutant counts as mutation
            self.tried[own] = self.tried.get(own, 0) + 1
            if evaluation.status is CandidateVerdict.NEAR_MISS:
                self.near.append((candidate, evaluation.fixed))
                if own == "mutation":
                    self.mutant_near.append((candidate, evaluation))
            if own == "sampling" and evaluation.status in _JUDGED:
                self.judged.append(Judged(candidate, evaluation.status, evaluation.fixed, failing,
                                          evaluation.failures, evaluation.broke))
            if background(key) and evaluation.status is CandidateVerdict.TIMEOUT:
                on_hang()  # the mutants hang: no more of them beside the model
            if evaluation.status is CandidateVerdict.REFUSED:
                self.refused.append(evaluation.reason)
            self.emit(PatchCandidate(source=own, label=candidate.label, provenance=candidate.provenance,
                                      result=evaluation.status.value, fixed=evaluation.fixed,
                                      seconds=round(evaluation.seconds, 2),
                                      **({"reason": evaluation.reason} if evaluation.reason else {})))

        outcome = session.search(queue, deadline=deadline, cancel=self.cancel, on_result=on_result,
                                 background=background)
        phases[phase] = round(phases.get(phase, 0.0) + time.monotonic() - start, 3)
        return outcome

    # -- helpers -----------------------------------------------------------------------

    @staticmethod
    def _diff(session: RepairSession, candidate: Candidate) -> str:
        """The unified diff of every file ``candidate`` changes, against the originals."""
        originals = {f: session.original(f) for f in files_of(candidate)}
        return unified_diffs(originals, apply_files(candidate, originals))

    def stopped(self) -> bool:
        """Cancelled, over the token budget, or past the deadline: no phase starts."""
        return self.cancel.is_set() or self.budget_hit or time.monotonic() > self.deadline

    def _why(self, status: PatchStatus) -> str:
        if status is PatchStatus.CANCELLED:
            return "cancelled; repository unchanged"
        if status is PatchStatus.BUDGET:
            return "the search's time or token budget ran out"
        return f"no plausible patch among {sum(self.tried.values())} candidates"

    def _end(self, result: PatchResult, start: float, phases: dict[str, float],
             session: RepairSession | None = None) -> PatchResult:
        result.tried, result.refused = dict(self.tried), list(self.refused)
        result.llm_calls, result.tokens = self.llm_calls, self.tokens
        result.elapsed_s = round(time.monotonic() - start, 3)
        result.phases = phases
        if self.near and session is not None:
            sample, fixed = sorted(self.near, key=lambda sf: (-sf[1], getattr(sf[0], "k", 0)))[0]
            result.near_miss = {"label": sample.label, "fixed": fixed, "failing": len(result.failing),
                                "provenance": sample.provenance, "files": list(files_of(sample)),
                                "diff": self._diff(session, sample)}
        self.emit(PatchDone(status=result.status.value, source=result.source, tried=result.tried,
                             llm_calls=result.llm_calls, tokens=result.tokens, elapsed_s=result.elapsed_s,
                             phases=phases, message=result.message, refused=result.refused))
        return result
