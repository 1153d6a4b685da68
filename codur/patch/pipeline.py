"""The candidate-patch pipeline: every fixer's candidates judged by one evaluator, cheapest first.

For a fix task with failing tests (see AGENTIC_LOGIC.md, "The candidate-patch pipeline"):

1. **Localize.** The repair session copies the repo into private workers, starts the
   warm pytest fork server and runs the suite once with per-test coverage (Ochiai).
2. **Mutation, time-boxed.** The mutation engine's mutants, best first, for at most
   ``time_box_s`` seconds (no model, ~0.3 s a candidate).
3. **Model samples.** The most suspicious function rewritten whole by the model, K
   samples (:mod:`codur.patch.sampling`); each is tested while the next one is drawn.
   A *pair* sample rewrites the two most suspicious functions together (across files:
   :mod:`codur.patch.ranking`) when they sit in different files, or once a sample was
   a near miss. Meanwhile the mutants the time box left are tested on one worker
   (:data:`BACKFILL_WORKERS`), after any sample waiting: the model keeps the other cores
   (not when a test hung, and no more once such a mutant times out).
4. **Hybrid.** The union of two near misses that changed different places, then
   mutants of the best near misses (:mod:`codur.patch.hybrid`).
5. **The rest of the mutants** (those the sampling phase did not reach), on every
   worker, until the search budget runs out.

The first plausible patch wins (failing tests pass, passing tests still pass). A
candidate may change several files; nothing in the repo is written here: the result
carries the diff of every file, and the graph's patch node applies it through the
ToolExecutor. What is left unsolved goes to the tool-loop agent,
with the best near miss as context.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel

from codur.core.contracts import PIPELINE_FIXERS, PatchStatus
from codur.patch import ranking
from codur.patch.contracts import PatchResult, PatchSettings
from codur.patch.conversation import Judged
from codur.patch.hybrid import hybrid_candidates
from codur.patch.prompt import PromptParts, test_source
from codur.patch.sampling import draw, judged_mutants
from codur.patch.splice import FunctionSpan
from codur.repair import mutants as mutation
from codur.repair.evaluate import MAX_FAILURES, Candidate, CandidateVerdict, Evaluation, apply_files, files_of
from codur.repair.patch import unified_diffs
from codur.repair.search import CandidateQueue, SearchOutcome
from codur.repair.session import RepairSession
from codur.testing.command import TestCommand

#: Seconds the search waits, once it has ended, for a model call still in flight (a streamed
#: reply stops at its next token; a call with no token yet is left behind, not waited for).
SAMPLER_GRACE_S = 2.0
#: Workers the untried mutants may hold while the model writes samples: the model server
#: keeps the other cores (on 2 cores, one test process beside it).
BACKFILL_WORKERS = 1
Event = Callable[[dict], None]


#: The verdicts of a sample the conversational feedback answers (a plausible one ends the search).
_JUDGED = (CandidateVerdict.FAILED, CandidateVerdict.NEAR_MISS, CandidateVerdict.TIMEOUT)


def _is_backfill(key: Any) -> bool:
    """A sampling-phase queue key of a mutant (samples have (0, k), mutants (1, index))."""
    return key[0] == 1


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
    """

    def __init__(self, repo, settings: PatchSettings, *,
                 models: list[BaseChatModel] | Callable[[], list[BaseChatModel]] | None = None,
                 failures: str = "", task: str = "", test_cmd: list[str] | TestCommand | None = None,
                 deadline: float | None = None, cancel: threading.Event | None = None,
                 over_budget: Callable[[], bool] = lambda: False, on_event: Event | None = None,
                 focus: list[str] | None = None, failing_before: list[str] | None = None,
                 suite_s: float = 0.0) -> None:
        self.repo, self.settings, self.fixers, self._models = repo, settings, tuple(settings.fixers), models
        self.failures, self.workers = failures, settings.workers
        self.time_box_s, self.samples = settings.time_box_s, settings.samples
        self.deadline = deadline if deadline is not None else time.monotonic() + settings.time_budget_s
        self.cancel = cancel or threading.Event()
        self.over_budget, self.emit = over_budget, on_event or (lambda e: None)
        self.max_mutants, self.max_lines, self.test_cmd = settings.max_mutants, settings.max_lines, test_cmd
        self.sample_format, self.task = settings.sample_format, task
        self.focus, self.failing_before, self.suite_s = focus, failing_before, suite_s
        self.memory_mb, self.max_pairs = settings.memory_mb, settings.max_pairs
        self.mutant_timeout_s = settings.mutant_timeout_s
        self.tried: dict[str, int] = dict.fromkeys(PIPELINE_FIXERS, 0)
        self.near: list[tuple[Any, int]] = []  # near misses of every fixer, with the failing tests they fixed
        self.judged: list[Judged] = []  # what the tests said about the samples (conversational feedback)
        self.mutant_near: list[tuple[Any, Evaluation]] = []  # near-miss mutants, with their verdicts
        self.ranked: list[tuple[FunctionSpan, float]] = []
        self.tokens = self.llm_calls = 0
        self._budget_hit = False

    # -- the phases --------------------------------------------------------------------

    def run(self) -> PatchResult:
        """Search; returns a :class:`PatchResult` (errors of the test runs become status
        "error"). KeyboardInterrupt propagates after every test run is killed."""
        start = time.monotonic()
        phases: dict[str, float] = {}
        self.emit({"event_type": "patch.start", "fixers": list(self.fixers), "workers": self.workers})
        session = RepairSession(self.repo, test_cmd=self.test_cmd, workers=self.workers, deadline=self.deadline,
                                mutant_timeout_s=self.mutant_timeout_s,
                                focus=self.focus, failing_before=self.failing_before, suite_s=self.suite_s,
                                memory_mb=self.memory_mb)
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
            self.emit({"event_type": "patch.localized", "failing_tests": loc.failing[:20],
                       "suspicious": loc.suspicious[:5], "functions": info["functions"][:5],
                       "elapsed_s": phases["localize"], "tests_run": len(loc.tests),
                       "selection": session.selection is not None})
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
                self.emit({"event_type": "patch.found", "label": best.label, "provenance": result.provenance,
                           "diff": result.diff})
                return self._end(result, start, phases, session)
            status = (PatchStatus.CANCELLED if self.cancel.is_set() else PatchStatus.BUDGET if self._budget_hit
                      or time.monotonic() > self.deadline else PatchStatus.NOT_FOUND)
            return self._end(PatchResult(status, message=self._why(status), **info), start, phases, session)

    def _phases(self, session: RepairSession, phases: dict[str, float]) -> SearchOutcome | None:
        loc = session.loc
        assert loc is not None
        left: list = []
        outcome = None
        if "mutation" in self.fixers or "hybrid" in self.fixers:
            found, texts = mutation.generate(session.repo, loc.scores, limit=self.max_mutants,
                                                max_pairs=self.max_pairs, hung_loops=loc.hung_loops)
            session.texts.update(texts)
            left = [(i, m) for i, m in enumerate(found)] if "mutation" in self.fixers else []
        later = bool(self._models) and "sampling" in self.fixers
        if left:
            box = min(self.deadline, time.monotonic() + self.time_box_s) if later else self.deadline
            outcome = self._search(session, "mutation", CandidateQueue(left, closed=True), box, phases)
            if outcome.best is not None:
                return outcome
            left = outcome.left
        if later and not self._stopped():
            outcome, left = self._sample(session, phases, left)
            if outcome is not None and outcome.best is not None:
                return outcome
        if "hybrid" in self.fixers and self.near and not self._stopped():
            queue = CandidateQueue(hybrid_candidates(self.near, session.original), closed=True)
            if len(queue):
                outcome = self._search(session, "hybrid", queue, self.deadline, phases)
                if outcome.best is not None:
                    return outcome
        if left and not self._stopped():
            outcome = self._search(session, "mutation", CandidateQueue(left, closed=True), self.deadline, phases,
                                   phase="mutation (rest)")
        return outcome

    def _sample(self, session: RepairSession, phases: dict[str, float],
                left: list) -> tuple[SearchOutcome | None, list]:
        """The sampling phase; ``left``: the mutants not tried yet, (index, mutant), tested
        on one worker while the model writes (:data:`BACKFILL_WORKERS`). Returns the
        outcome and the mutants still not tried."""
        loc = session.loc
        assert loc is not None

        try:
            models = self._models() if callable(self._models) else list(self._models or [])
        except Exception as exc:  # noqa: BLE001 - no model: the other fixers still run
            self.emit({"event_type": "patch.phase", "phase": "sampling",
                       "skipped": f"{type(exc).__name__}: {exc}"[:300]})
            return None, left
        chosen = ranking.choose(self.ranked)
        if not chosen:
            self.emit({"event_type": "patch.phase", "phase": "sampling", "skipped": "no suspicious function"})
            return None, left
        spans = [span for span, _ in chosen]
        both, cross = ranking.pair(self.ranked, spans)
        first = spans[0]
        lines = sorted({ln for (f, ln), _ in loc.scores.items() if f == first.file
                        and any(s.start <= ln <= s.end for s in spans)},
                       key=lambda ln: -loc.scores[(first.file, ln)])
        parts = PromptParts(spans, session.original(first.file), self.failures or "\n".join(loc.failing[:5]),
                            test_source(session.original, loc.failing), lines, self.sample_format, self.task,
                            texts={s.file: session.original(s.file) for s in both}, pair=both, pair_first=cross,
                            verdict=tuple((t.nodeid, t.message) for t in loc.tests
                                          if t.outcome == "failed")[:MAX_FAILURES])
        # samples first (key (0, k)); the mutants not tried yet fill a worker while the model writes,
        # unless a test hung (a hanging mutant holds a core for its whole limit: the model slows 2-3x)
        hung = any(t.timed_out for t in loc.tests)
        self.emit({"event_type": "patch.phase", "phase": "sampling", "functions": [s.qualname for s in spans],
                   "file": first.file, "samples": self.samples, "backfill": 0 if hung else len(left),
                   "pair": [f"{s.file}:{s.qualname}" for s in parts.pair], "pair_first": parts.pair_first})
        queue = CandidateQueue([] if hung else [((1, i), m) for i, m in left])
        rest: list = list(left) if hung else []

        def stop_backfill() -> None:
            rest.extend(queue.take(_is_backfill))
        found, left_behind = threading.Event(), threading.Event()
        lock = threading.Lock()

        def stop() -> bool:
            return found.is_set() or self._stopped()

        def produce() -> None:
            try:
                for drawn in draw(models, parts, self.samples, stop=stop, want_pair=lambda: bool(self.near),
                                  judged=lambda: [*judged_mutants(self.mutant_near, parts, session.original,
                                                                  len(loc.failing)), *self.judged]):
                    with lock:
                        if left_behind.is_set():  # run() has returned: report nothing more
                            return
                        self.llm_calls += 1
                        self.tokens += drawn.tokens
                        self.emit({"event_type": "patch.sample", "k": drawn.k, "variant": drawn.variant,
                                   "temperature": drawn.temperature, "outcome": drawn.outcome,
                                   "seconds": round(drawn.seconds, 2), "tokens": drawn.tokens,
                                   "reply": drawn.reply[:400], **({"error": drawn.error} if drawn.error else {})})
                        if drawn.sample is not None:
                            queue.push((0, drawn.k), drawn.sample)
                        if self.over_budget():
                            self._budget_hit = True
                            return
            finally:  # no more samples: the mutants wait for the hybrid step, then run on every worker
                stop_backfill()
                queue.close()

        # the sampler's events go through the graph's stream writer: run it in this context
        producer = threading.Thread(target=contextvars.copy_context().run, args=(produce,), name="codur-sampler",
                                    daemon=True)
        start = time.monotonic()
        producer.start()
        try:
            outcome = self._search(session, "sampling", queue, self.deadline, phases, announce=False,
                                   background=_is_backfill, on_hang=stop_backfill)
        finally:
            found.set()  # found, or the search ended: the sampler stops at its next token
            producer.join(SAMPLER_GRACE_S)  # a call that blocks must not hold the search past its deadline
            with lock:
                left_behind.set()
        phases["sampling"] = round(time.monotonic() - start, 3)
        rest += [(k, m) for k, m in outcome.left if _is_backfill(k)] + queue.take(_is_backfill)
        return outcome, sorted(((k[1], m) if isinstance(k, tuple) else (k, m) for k, m in rest),
                               key=lambda im: im[0])

    def _search(self, session: RepairSession, source: str, queue: CandidateQueue, deadline: float,
                phases: dict[str, float], *, phase: str = "", announce: bool = True,
                background: Callable[[Any], bool] = lambda key: False,
                on_hang: Callable[[], None] = lambda: None) -> SearchOutcome:
        phase = phase or source
        if announce:
            self.emit({"event_type": "patch.phase", "phase": phase, "candidates": len(queue)})
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
            self.emit({"event_type": "patch.candidate", "source": own, "label": candidate.label,
                       "provenance": candidate.provenance, "result": evaluation.status.value, "fixed": evaluation.fixed,
                       "seconds": round(evaluation.seconds, 2)})

        outcome = session.search(queue, deadline=deadline, cancel=self.cancel, on_result=on_result,
                                 background=background, background_width=BACKFILL_WORKERS)
        phases[phase] = round(phases.get(phase, 0.0) + time.monotonic() - start, 3)
        return outcome

    # -- helpers -----------------------------------------------------------------------

    @staticmethod
    def _diff(session: RepairSession, candidate: Candidate) -> str:
        """The unified diff of every file ``candidate`` changes, against the originals."""
        originals = {f: session.original(f) for f in files_of(candidate)}
        return unified_diffs(originals, apply_files(candidate, originals))

    def _stopped(self) -> bool:
        return self.cancel.is_set() or self._budget_hit or time.monotonic() > self.deadline

    def _why(self, status: PatchStatus) -> str:
        if status is PatchStatus.CANCELLED:
            return "cancelled; repository unchanged"
        if status is PatchStatus.BUDGET:
            return "the search's time or token budget ran out"
        return f"no plausible patch among {sum(self.tried.values())} candidates"

    def _end(self, result: PatchResult, start: float, phases: dict[str, float],
             session: RepairSession | None = None) -> PatchResult:
        result.tried = dict(self.tried)
        result.llm_calls, result.tokens = self.llm_calls, self.tokens
        result.elapsed_s = round(time.monotonic() - start, 3)
        result.phases = phases
        if self.near and session is not None:
            sample, fixed = sorted(self.near, key=lambda sf: (-sf[1], getattr(sf[0], "k", 0)))[0]
            result.near_miss = {"label": sample.label, "fixed": fixed, "failing": len(result.failing),
                                "provenance": sample.provenance, "files": list(files_of(sample)),
                                "diff": self._diff(session, sample)}
        self.emit({"event_type": "patch.done", "status": result.status.value, "source": result.source,
                   "tried": result.tried, "llm_calls": result.llm_calls, "tokens": result.tokens,
                   "elapsed_s": result.elapsed_s, "phases": phases, "message": result.message})
        return result
