"""The mutation and sampling fixers' phases of the candidate-patch pipeline.

A phase is ``(pipeline, session, run) -> SearchOutcome | None`` (:class:`codur.patch.PatchPipeline`,
its :class:`codur.repair.session.RepairSession`, the search's :class:`codur.patch.contracts.PhaseRun`),
named by its fixer's record in :data:`codur.core.contracts.FIXERS`; None: the phase had nothing
to try.

- **Mutation**, time-boxed: the mutation engine's mutants, best first, for at most
  ``time_box_s`` seconds when the model samples next (no model, ~0.3 s a candidate); the
  mutants past the box are left untried.
- **Model samples**: the most suspicious function rewritten whole by the model, K samples
  (:mod:`codur.patch.sampling`); each is tested while the next one is drawn. A *pair*
  sample rewrites the two most suspicious functions together (across files:
  :mod:`codur.patch.ranking`) when they sit in different files, or once a sample was a near
  miss. Meanwhile the untried mutants are tested, after any sample waiting, on the cores the
  model's threads leave (:class:`codur.core.cpu.CpuBudget`: none on 2 cores with 2 threads;
  every core between samples), not when a test hung, and no more once such a mutant times out.
"""

from __future__ import annotations

import contextvars
import threading
import time
from typing import TYPE_CHECKING, Any

from codur.core.events.patch import PatchMutants, PatchPhase, PatchSample
from codur.patch import ranking
from codur.patch.contracts import PhaseRun
from codur.patch.prompt import PromptParts, test_source
from codur.patch.sampling import draw, judged_mutants
from codur.repair import mutants as mutation
from codur.repair.evaluate import MAX_FAILURES
from codur.repair.search import CandidateQueue, SearchOutcome
from codur.repair.session import RepairSession

if TYPE_CHECKING:
    from codur.patch.pipeline import PatchPipeline

#: Seconds the search waits, once it has ended, for a model call still in flight (a streamed
#: reply stops at its next token; a call with no token yet is left behind, not waited for).
SAMPLER_GRACE_S = 2.0


def _is_backfill(key: Any) -> bool:
    """A sampling-phase queue key of a mutant (samples have (0, k), mutants (1, index))."""
    return key[0] == 1


def mutation_phase(pipeline: PatchPipeline, session: RepairSession, run: PhaseRun) -> SearchOutcome | None:
    """The mutants, best first, until the deadline, or for ``time_box_s`` seconds when the
    model samples next; those not tried go to ``run.untried["mutation"]`` as (index, mutant)."""
    loc = session.loc
    assert loc is not None
    start = time.monotonic()
    found, texts = mutation.generate(session.repo, loc.scores, limit=pipeline.max_mutants,
                                     max_pairs=pipeline.max_pairs, hung_loops=loc.hung_loops,
                                     raises=loc.expected_raises)
    pipeline.emit(PatchMutants(count=len(found), seconds=round(time.monotonic() - start, 3)))
    session.texts.update(texts)
    pipeline.mutants = len(found)
    if not found:
        return None
    later = bool(pipeline.models) and "sampling" in pipeline.fixers
    box = min(pipeline.deadline, time.monotonic() + pipeline.time_box_s) if later else pipeline.deadline
    outcome = pipeline.search(session, "mutation", CandidateQueue(list(enumerate(found)), closed=True), box,
                              run.phases)
    run.untried["mutation"] = outcome.left
    return outcome


def sampling_phase(pipeline: PatchPipeline, session: RepairSession, run: PhaseRun) -> SearchOutcome | None:
    """The model's samples, with the untried mutants (``run.untried["mutation"]``, (index,
    mutant)) beside the model, on the cores it leaves; those still untried are put back there."""
    loc = session.loc
    assert loc is not None
    if not pipeline.models or pipeline.stopped():
        return None
    left = run.untried.get("mutation", [])
    try:
        models = pipeline.models() if callable(pipeline.models) else list(pipeline.models)
    except Exception as exc:  # noqa: BLE001 - no model: the other fixers still run
        pipeline.emit(PatchPhase(phase="sampling", skipped=f"{type(exc).__name__}: {exc}"[:300]))
        return None
    chosen = ranking.choose(pipeline.ranked)
    if not chosen:
        pipeline.emit(PatchPhase(phase="sampling", skipped="no suspicious function"))
        return None
    spans = [span for span, _ in chosen]
    both, cross = ranking.pair(pipeline.ranked, spans)
    first = spans[0]
    lines = sorted({ln for (f, ln), _ in loc.scores.items() if f == first.file
                    and any(s.start <= ln <= s.end for s in spans)},
                   key=lambda ln: -loc.scores[(first.file, ln)])
    parts = PromptParts(spans, session.original(first.file), pipeline.failures or "\n".join(loc.failing[:5]),
                        test_source(session.original, loc.failing), lines, pipeline.sample_format, pipeline.task,
                        texts={s.file: session.original(s.file) for s in both}, pair=both, pair_first=cross,
                        verdict=tuple((t.nodeid, t.message) for t in loc.tests
                                      if t.outcome == "failed")[:MAX_FAILURES])
    # samples first (key (0, k)); the mutants not tried yet run beside the model (the CPU budget says how),
    # unless a test hung (a hanging mutant holds a core for its whole limit: the model slows 2-3x)
    hung = any(t.timed_out for t in loc.tests)
    pipeline.emit(PatchPhase(phase="sampling", functions=[s.qualname for s in spans], file=first.file,
                             samples=pipeline.samples, backfill=0 if hung else len(left),
                             pair=[f"{s.file}:{s.qualname}" for s in parts.pair], pair_first=parts.pair_first))
    queue = CandidateQueue([] if hung else [((1, i), m) for i, m in left])
    rest: list = list(left) if hung else []

    def stop_backfill() -> None:
        rest.extend(queue.take(_is_backfill))
    found, left_behind = threading.Event(), threading.Event()
    lock = threading.Lock()

    def stop() -> bool:
        return found.is_set() or pipeline.stopped()

    def produce() -> None:
        try:
            for drawn in draw(models, parts, pipeline.samples, stop=stop, want_pair=lambda: bool(pipeline.near),
                              judged=lambda: [*judged_mutants(pipeline.mutant_near, parts, session.original,
                                                              len(loc.failing)), *pipeline.judged]):
                with lock:
                    if left_behind.is_set():  # the phase has returned: report nothing more
                        return
                    pipeline.llm_calls += 1
                    pipeline.tokens += drawn.tokens
                    pipeline.emit(PatchSample(k=drawn.k, variant=drawn.variant, temperature=drawn.temperature,
                                                 outcome=drawn.outcome, seconds=round(drawn.seconds, 2),
                                                 tokens=drawn.tokens, reply=drawn.reply[:400],
                                                 **({"error": drawn.error} if drawn.error else {})))
                    if drawn.sample is not None:
                        queue.push((0, drawn.k), drawn.sample)
                    if pipeline.over_budget():
                        pipeline.budget_hit = True
                        return
        finally:  # no more samples: the mutants wait for the later fixers, then run on every worker
            stop_backfill()
            queue.close()

    # the sampler's events go through the graph's stream writer: run it in this context
    producer = threading.Thread(target=contextvars.copy_context().run, args=(produce,), name="codur-sampler",
                                daemon=True)
    start = time.monotonic()
    producer.start()
    try:
        outcome = pipeline.search(session, "sampling", queue, pipeline.deadline, run.phases, announce=False,
                                  background=_is_backfill, on_hang=stop_backfill)
    finally:
        found.set()  # found, or the search ended: the sampler stops at its next token
        producer.join(SAMPLER_GRACE_S)  # a call that blocks must not hold the search past its deadline
        with lock:
            left_behind.set()
    run.phases["sampling"] = round(time.monotonic() - start, 3)
    rest += [(k, m) for k, m in outcome.left if _is_backfill(k)] + queue.take(_is_backfill)
    run.untried["mutation"] = sorted(((k[1], m) if isinstance(k, tuple) else (k, m) for k, m in rest),
                                     key=lambda im: im[0])
    return outcome
