"""The candidate-patch pipeline: every fixer's candidates judged by one evaluator, cheapest first.

For a fix task with failing tests (AGENTIC_LOGIC.md, "The candidate-patch pipeline", has the
whole order): the repair session localizes (coverage, Ochiai); each fixer of
:data:`codur.patch.fixers.FIXERS` the settings enable proposes candidates through a
:class:`codur.patch.fixer.FixerView`; this pipeline alone schedules them, tests them on the
workers (a model fixer's beside the untried mutants, its first tier within a time box), counts them per fixer
and keeps the near misses; what a fixer left untried is tested at the end (phase ``"<fixer> (rest)"``).

A candidate that edits a test, deletes too much (:mod:`codur.validate.footprint`) or has a
refused anti-pattern (:mod:`codur.validate.antipatterns`) is refused before its tests run. A
clean plausible patch wins at once; a held-back one waits while the search goes on for a bounded
extra budget (:mod:`codur.patch.choice`). Nothing in the repo is written here: the graph's patch
node applies the result's diffs through the ToolExecutor.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel

from codur.core.contracts import PatchStatus
from codur.core.events import Event
from codur.core.events.patch import PatchCandidate, PatchDone, PatchFound, PatchLocalized, PatchPhase, PatchStart
from codur.patch import fixers as fixer_list
from codur.patch import ranking
from codur.patch.chain import Chain
from codur.patch.choice import Held, Stop, rank
from codur.patch.contracts import PatchResult, PatchSettings, Queued, SearchEnd, why_unsolved
from codur.patch.fixer import Fixer, FixerView, Judgement, ModelCall
from codur.patch.phases import ModelBox, Phase, SearchRun, best_near_miss, diff_of, is_backfill, next_tiers_after, once
from codur.patch.producer import Producer, read_originals
from codur.testing.command import TestCommand
from codur.tools.executor import TestPolicy
from codur.validate.evaluate import Candidate, CandidateVerdict, Evaluation, apply_files, files_of
from codur.validate.search import CandidateQueue, SearchOutcome
from codur.validate.session import RepairSession

OnEvent = Callable[[Event], None]


class PatchPipeline:
    """Runs the fixers in cost order on one repair session.

    Args:
        repo: the repository (never written).
        settings: how to search (:class:`PatchSettings`).
        models: the chat models that sample patches (the actor role's fallback chain), or
            a function returning them, called only when a model fixer starts (so a bug fixed
            by the mutation search never starts the embedded model).
        failures: the failing tests' report shown to the model (ids, short tracebacks).
        task: the user's request, shown to the model (it often describes the symptom).
        test_cmd: the repo's test command (resolved, or an argv; None: the default one).
        deadline: ``time.monotonic()`` by which the search ends (default: ``settings.time_budget_s`` on).
        cancel: set to stop (status "cancelled").
        over_budget: asked after each model call; True stops the model fixer (status ``budget``): the
            run's limits, which read its usage ledger (every call recorded there).
        on_event: progress events (``patch.*``).
        focus, failing_before, suite_s: test selection (see :class:`codur.validate.session.RepairSession`):
            the failing tests to start from, the tests that failed in the whole suite before
            any change (None: unknown), and that run's seconds. No focus: the whole suite.
        policy: the run's test policy (:meth:`codur.tools.executor.ToolExecutor.test_policy`),
            handed to every candidate worker (default: none).
    """

    def __init__(self, repo, settings: PatchSettings, *,
                 models: list[BaseChatModel] | Callable[[], list[BaseChatModel]] | None = None,
                 failures: str = "", task: str = "", test_cmd: list[str] | TestCommand | None = None,
                 deadline: float | None = None, cancel: threading.Event | None = None,
                 over_budget: Callable[[], bool] = lambda: False, on_event: OnEvent | None = None,
                 focus: list[str] | None = None, failing_before: list[str] | None = None,
                 suite_s: float = 0.0, policy: TestPolicy | None = None) -> None:
        self.repo, self.settings = repo, settings
        self.models = once(models) if callable(models) else models  # built once, for every model fixer
        self.fixers: tuple[Fixer, ...] = tuple(f for f in fixer_list.FIXERS if f.name in settings.fixers)
        self.failures, self.task, self.test_cmd, self.policy = failures, task, test_cmd, policy
        self.deadline = deadline if deadline is not None else time.monotonic() + settings.time_budget_s
        self.cancel = cancel or threading.Event()
        self.over_budget, self.emit = over_budget, on_event or (lambda e: None)
        self.selection = {"focus": focus, "failing_before": failing_before, "suite_s": suite_s}
        # what the search found: counted and kept here alone
        self.tried: dict[str, int] = dict.fromkeys((f.name for f in fixer_list.FIXERS), 0)
        self.near: list[tuple[Any, int]] = []  # near misses of every fixer, with the failing tests they fixed
        self.verdicts: list[Judgement] = []  # every candidate's verdict, in the order judged
        self.refused: list[str] = []  # why each refused candidate was refused (codur.validate.footprint)
        self.tokens = self.llm_calls = 0
        self.queued: dict[str, int] = {}  # candidates each fixer without a model queued (the SearchEnd's mutants)
        self.pairs: dict[str, int] = {}  # second-order ones among them (Mutant.order 2)
        self.budget_hit, self.held = False, Held(self.deadline)  # held: plausible ones held back by an anti-pattern
        self.halt = Stop(self.cancel, self.held)  # what the searches poll: cancelled, or the extra budget spent
        self.box = ModelBox(self.deadline, settings.model_box_s)  # the model fixers' first tier

    def run(self) -> PatchResult:
        """Search; returns a :class:`PatchResult` (errors of the test runs become status
        "error"). KeyboardInterrupt propagates after every test run is killed."""
        start = time.monotonic()
        phases: dict[str, float] = {}
        self.emit(PatchStart(fixers=list(self.settings.fixers), workers=self.settings.workers))
        session = RepairSession(self.repo, test_cmd=self.test_cmd, workers=self.settings.workers,
                                deadline=self.deadline, mutant_timeout_s=self.settings.mutant_timeout_s,
                                memory_mb=self.settings.memory_mb, on_event=self.emit, policy=self.policy,
                                **self.selection)
        try:
            session.__enter__()
        except (OSError, RuntimeError) as exc:
            return self._end(PatchResult(PatchStatus.ERROR, message=f"could not run the tests: {exc}"), start, phases)
        with session:
            loc = session.loc
            assert loc is not None
            phases["localize"] = round(time.monotonic() - start, 3)
            ranked = ranking.rank_functions(loc.scores, session.original, max_lines=self.settings.max_lines)
            info = {"failing": loc.failing, "suspicious": loc.suspicious[:10], "functions": ranking.summary(ranked)}
            self.emit(PatchLocalized(failing_tests=loc.failing[:20], suspicious=loc.suspicious[:5],
                                      functions=info["functions"][:5], elapsed_s=phases["localize"],
                                      tests_run=len(loc.tests), selection=session.selection is not None))
            if not loc.failing:
                return self._end(PatchResult(PatchStatus.NO_FAILING_TESTS, message="no failing tests", **info),
                                 start, phases)
            try:
                chain = Chain(session.repo, loc, judged=lambda: [j.candidate for j in self.verdicts])
                outcome = self._run_fixers(SearchRun(session, tuple(ranked), phases, chain=chain))
            except (OSError, RuntimeError) as exc:  # the test runner died mid-search
                return self._end(PatchResult(PatchStatus.ERROR, message=f"the test runs failed: {exc}", **info),
                                 start, phases)
            if outcome is not None and outcome.best is not None:
                return self._end(self._found(session, outcome.best, info), start, phases, session)
            if self.held.found and not self.cancel.is_set():  # no clean plausible candidate: the best held back
                originals = {f: session.original(f) for c, _, _ in self.held.found for f in files_of(c)}
                best, evaluation = rank(self.held, originals, session.loc)
                return self._end(self._found(session, best, info, evaluation), start, phases, session)
            status = (PatchStatus.CANCELLED if self.cancel.is_set() else PatchStatus.BUDGET if self.budget_hit
                      or time.monotonic() > self.deadline else PatchStatus.NOT_FOUND)
            queued = Queued(self.queued.get("mutation", 0), self.pairs.get("mutation", 0))
            end = SearchEnd.of(status, self.settings, tried=sum(self.tried.values()), queued=queued,
                               token_budget=self.budget_hit)
            message = why_unsolved(status, sum(self.tried.values()))
            return self._end(PatchResult(status, message=message, end=end, **info), start, phases, session)

    def _found(self, session: RepairSession, best: Candidate, info: dict,
               evaluation: Evaluation | None = None) -> PatchResult:
        """The result of a plausible patch ``best`` (``evaluation``: its verdict when it was held
        back); emits ``patch.found``."""
        files = list(files_of(best))
        provenance = {**best.provenance, "judged": session.judged(tuple(files))}
        held = [f.as_dict() for f in evaluation.held] if evaluation is not None else []
        result = PatchResult(PatchStatus.PATCHED, diff_of(session, best), best.file, files, best.label,
                             best.provenance["source"], provenance, held=held, **info)
        self.emit(PatchFound(label=best.label, provenance=result.provenance, diff=result.diff,
                             **({"held": [f["description"] for f in held]} if held else {})))
        return result

    # -- scheduling ----------------------------------------------------------------------

    def _run_fixers(self, run: SearchRun) -> SearchOutcome | None:
        """Each fixer in cost order, then the candidates they left untried; the first outcome
        with a plausible patch, else the last one (None: nothing was tried)."""
        outcome = None
        for i, fixer in enumerate(self.fixers):
            if self.stopped() or (fixer.calls_model and (not self.models or self.box.over())):
                continue
            found = self._beside_model(run, fixer) if fixer.calls_model else self._search_all(
                run, fixer, boxed=bool(self.models) and any(f.calls_model for f in self.fixers[i + 1:]))
            outcome = found or outcome
            if outcome is not None and outcome.best is not None:
                return outcome
        for source, left in run.untried.items():
            if left and not self.stopped():
                outcome = self.search(run, Phase(f"{source} (rest)", source, self.deadline),
                                      CandidateQueue(left, closed=True))
                if outcome.best is not None:
                    return outcome
        return self._next_tiers(run) or outcome

    def _next_tiers(self, run: SearchRun) -> SearchOutcome | None:
        """With time left once every candidate was tried: tiers 2 to ``settings.tiers`` of the fixers
        that have them (``more(view, tier)``: MutationFixer's mutants a count budget cut, ClozeFixer's
        next masks), each searched until the deadline, the model fixers' last (first with
        ``settings.model_tiers_first``). The first outcome with a plausible patch, else the last."""
        outcome, first = None, self.settings.model_tiers_first
        for fixer in sorted(self.fixers, key=lambda f: f.calls_model != first):  # stable: cost order within
            more = getattr(fixer, "more", None)
            if fixer.calls_model and not self.models:
                continue
            for tier in range(2, self.settings.tiers + 1) if more is not None else ():
                if fixer.calls_model:
                    found = None if self.stopped() else self._beside_model(run, fixer, tier)
                    outcome = found or outcome
                    if found is None or found.best is not None:
                        break
                    continue
                found = [] if self.stopped() else list(more(self._view(run), tier))
                if not found:
                    break
                self._queued(fixer, found)
                read_originals(run.session, found)
                outcome = self.search(run, Phase(f"{fixer.name} (tier {tier})", fixer.name, self.deadline),
                                      CandidateQueue(list(enumerate(found)), closed=True))
                if outcome.best is not None:
                    return outcome
        return outcome

    def _view(self, run: SearchRun, *, backfill: int = 0, done: threading.Event | None = None) -> FixerView:
        """What a fixer sees of this search; ``done``: set once its phase is over."""
        models, session = self.models, run.session
        return FixerView(
            repo=session.repo, localization=session.loc, ranked=run.ranked, failures=self.failures, task=self.task,
            settings=self.settings, models=(models if callable(models) else (lambda: list(models))) if models else None,
            deadline=self.deadline, original=session.original, emit=self.emit, backfill=backfill,
            near_misses=lambda: list(self.near), verdicts=lambda: list(self.verdicts),
            stopped=lambda: (done is not None and done.is_set()) or self.stopped())

    def _search_all(self, run: SearchRun, fixer: Fixer, *, boxed: bool) -> SearchOutcome | None:
        """A fixer that calls no model: all its candidates, searched until the deadline, or for
        ``time_box_s`` seconds when ``boxed`` (a model fixer follows); what it did not try goes to
        ``untried[fixer.name]``, when ``boxed`` with its next tiers after it (:func:`next_tiers_after`).
        None: it had no candidate."""
        found = list(fixer.candidates(self._view(run)))
        self.queued[fixer.name] = self.pairs[fixer.name] = 0
        self._queued(fixer, found)
        if not found:
            return None
        read_originals(run.session, found)
        box = min(self.deadline, time.monotonic() + self.settings.time_box_s) if boxed else self.deadline
        outcome = self.search(run, Phase(fixer.name, fixer.name, box),
                              CandidateQueue(list(enumerate(found)), closed=True))
        more = next_tiers_after(fixer, self._view(run), outcome.left, self.settings.tiers) \
            if boxed and outcome.best is None and not self.stopped() and not self.settings.model_tiers_first else []
        read_originals(run.session, more)
        run.untried[fixer.name] = outcome.left + [(len(found) + i, c) for i, c in enumerate(more)]
        self._queued(fixer, more)
        return outcome

    def _queued(self, fixer: Fixer, found: list) -> None:
        """Count ``found`` as queued by ``fixer`` (and its second-order mutants among them)."""
        self.queued[fixer.name] = self.queued.get(fixer.name, 0) + len(found)
        self.pairs[fixer.name] = self.pairs.get(fixer.name, 0) + sum(getattr(c, "order", 1) == 2 for c in found)

    def _beside_model(self, run: SearchRun, fixer: Fixer, tier: int = 1) -> SearchOutcome | None:
        """A fixer that calls a model: its candidates (key (0, n)) tested as they come, the
        earlier fixers' untried ones (key (1, owner, key)) beside them on the cores the model
        leaves (none when a test hung: a hanging candidate holds a core for its whole limit, and
        no more once such a one timed out); those still untried go back to ``untried``.
        None: the fixer had nothing to try. ``tier`` > 1: its ``more(view, tier)`` instead of its candidates."""
        session, untried = run.session, run.untried
        name = fixer.name if tier == 1 else f"{fixer.name} (tier {tier})"
        owners = list(untried)
        left = [((1, i, key), c) for i, owner in enumerate(owners) for key, c in untried[owner]]
        hung = any(t.timed_out for t in session.loc.tests)
        done = threading.Event()
        view = self._view(run, backfill=0 if hung else len(left), done=done)
        items = fixer.candidates(view) if tier == 1 else fixer.more(view, tier)  # type: ignore[attr-defined]
        if isinstance(items, list | tuple) and not items:
            return None
        queue = CandidateQueue([] if hung else left)
        rest: list = list(left) if hung else []

        def stop_backfill() -> None:
            rest.extend(queue.take(is_backfill))

        start = time.monotonic()
        producer = Producer(items, queue, session, self._count, self._over_budget)
        producer.start(stop_backfill)
        try:
            outcome = self.search(run, Phase(name, fixer.name, self.box.until() if tier == 1 else self.deadline), queue,
                                  on_hang=stop_backfill)
        finally:
            done.set()  # found, or the search ended: the model fixer stops at its next token
            producer.finish()
        run.phases[name] = round(time.monotonic() - start, 3)
        rest += [(k, c) for k, c in outcome.left if is_backfill(k)] + queue.take(is_backfill)
        for i, owner in enumerate(owners):
            untried[owner] = sorted(((k[2], c) for k, c in rest if k[1] == i), key=lambda kc: kc[0])
        untried[fixer.name] = [(k[1], c) for k, c in outcome.left if not is_backfill(k)]
        return outcome

    def _count(self, call: ModelCall) -> None:
        """Count a model fixer's call and emit its event."""
        self.llm_calls += 1
        self.tokens += call.tokens
        self.emit(call.event())

    def _over_budget(self) -> bool:
        """Asked after each item of a model fixer: True (and ``budget_hit``) once ``over_budget`` says so."""
        if self.over_budget():
            self.budget_hit = True
        return self.budget_hit

    # -- the search ------------------------------------------------------------------------

    def search(self, run: SearchRun, phase: Phase, queue: CandidateQueue,
               on_hang: Callable[[], None] | None = None) -> SearchOutcome:
        """Test ``queue``'s candidates (each counted, its verdict and its near miss kept, under
        its ``provenance["source"]``, else ``phase.source``) on the workers until
        ``phase.deadline``; the seconds add to ``run.phases[phase.name]``, after a ``patch.phase``
        event. With ``on_hang`` the search runs beside a model fixer (no ``patch.phase`` event):
        a backfill candidate (:func:`is_backfill`) gets the cores the embedded model leaves
        (:class:`codur.core.cpu.CpuBudget`), and ``on_hang()`` is called when one timed out."""
        beside = on_hang is not None
        background = is_backfill if beside else (lambda key: False)
        if not beside:
            self.emit(PatchPhase(phase=phase.name, candidates=len(queue)))
        start = time.monotonic()

        def on_result(key: Any, candidate: Any, evaluation: Evaluation) -> None:
            own = candidate.provenance.get("source", phase.source)  # a backfilled mutant counts as mutation
            self.tried[own] = self.tried.get(own, 0) + 1
            self.verdicts.append(Judgement(candidate, evaluation, own))
            if evaluation.status is CandidateVerdict.NEAR_MISS:
                self.near.append((candidate, evaluation.fixed))
                if run.chain is not None:  # its unions, the mutants its left failing tests point at
                    run.chain.queue_after(candidate, evaluation.fixed_tests, queue, key, run.session)
            if beside and is_backfill(key) and evaluation.status is CandidateVerdict.TIMEOUT:
                on_hang()  # the backfill hangs: no more of it beside the model
            if evaluation.status is CandidateVerdict.REFUSED:
                self.refused.append(evaluation.reason)
            reason = evaluation.reason
            if evaluation.status is CandidateVerdict.HELD:  # plausible, held back: the search goes on
                originals = {f: run.session.original(f) for f in files_of(candidate)}
                self.held.add(candidate, evaluation, apply_files(candidate, originals))
                reason = "; also ".join(f.describe() for f in evaluation.held)
            self.emit(PatchCandidate(source=own, label=candidate.label, provenance=candidate.provenance,
                                      result=evaluation.status.value, fixed=evaluation.fixed,
                                      seconds=round(evaluation.seconds, 2), **({"reason": reason} if reason else {})))

        outcome = run.session.search(queue, deadline=phase.deadline, cancel=self.halt, on_result=on_result,
                                     background=background, finish_by=self.deadline)
        run.phases[phase.name] = round(run.phases.get(phase.name, 0.0) + time.monotonic() - start, 3)
        return outcome

    def stopped(self) -> bool:
        """Cancelled, over the token budget, past the deadline, or past the extra budget of a
        held-back candidate (:class:`codur.patch.choice.Held`): no fixer starts."""
        return self.halt.is_set() or self.budget_hit or time.monotonic() > self.deadline

    def _end(self, result: PatchResult, start: float, phases: dict[str, float],
             session: RepairSession | None = None) -> PatchResult:
        result.tried, result.refused = dict(self.tried), list(self.refused)
        result.llm_calls, result.tokens = self.llm_calls, self.tokens
        result.elapsed_s, result.phases = round(time.monotonic() - start, 3), phases
        if self.near and session is not None:
            result.near_miss = best_near_miss(session, self.near, len(result.failing))
        self.emit(PatchDone(status=result.status.value, source=result.source, tried=result.tried,
                             llm_calls=result.llm_calls, tokens=result.tokens, elapsed_s=result.elapsed_s,
                             phases=phases, message=result.message, refused=result.refused))
        return result
