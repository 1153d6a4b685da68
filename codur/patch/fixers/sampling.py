"""The sampling fixer: the most suspicious function(s) rewritten whole by the model, K samples
(:class:`codur.patch.sampling.Sampler`), each tested while the next one is drawn.

A *pair* sample rewrites the two most suspicious functions together (across files:
:mod:`codur.patch.ranking`) when they sit in different files, or once a sample was a near
miss. What the tests said about the samples, and the near-miss mutants of the sampled
functions, feed the feedback samples (:mod:`codur.patch.conversation`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from codur.core.events.patch import PatchPhase
from codur.patch import ranking
from codur.patch.conversation import Judged
from codur.patch.fixer import FixerView
from codur.patch.prompt import PromptParts, test_source
from codur.patch.sample import Sample
from codur.patch.sampling import Drawn, Sampler
from codur.patch.splice import FunctionSpan, functions
from codur.validate.evaluate import MAX_FAILURES, CandidateVerdict, Evaluation

#: The verdicts of a sample the conversational feedback answers (a plausible one ends the search).
JUDGED = (CandidateVerdict.FAILED, CandidateVerdict.NEAR_MISS, CandidateVerdict.TIMEOUT)


class SamplingFixer:
    """Model samples of the most suspicious function(s), ``settings.samples`` at most."""

    name = "sampling"
    calls_model = True

    def candidates(self, view: FixerView) -> Iterable[Drawn]:
        """The sampler's model calls (each :class:`Drawn`, with its sample when it gave one);
        none when no model starts or no function is suspicious (a ``patch.phase`` event
        with ``skipped`` says why). Emits the ``patch.phase`` event of the sampling phase."""
        try:
            models = view.models() if view.models is not None else []
        except Exception as exc:  # noqa: BLE001 - no model: the other fixers still run
            view.emit(PatchPhase(phase="sampling", skipped=f"{type(exc).__name__}: {exc}"[:300]))
            return []
        chosen = ranking.choose(list(view.ranked))
        if not chosen:
            view.emit(PatchPhase(phase="sampling", skipped="no suspicious function"))
            return []
        parts = prompt_parts(view, [span for span, _ in chosen])
        view.emit(PatchPhase(phase="sampling", functions=[s.qualname for s in parts.spans], file=parts.spans[0].file,
                             samples=view.settings.samples, backfill=view.backfill,
                             pair=[f"{s.file}:{s.qualname}" for s in parts.pair], pair_first=parts.pair_first))
        echoes = 1 if "cloze" in view.settings.fixers else 0  # the fills take that time
        return Sampler(models, parts, echoes=echoes).draw(view.settings.samples, _Verdicts(view, parts))


def prompt_parts(view: FixerView, spans: list[FunctionSpan]) -> PromptParts:
    """The samples' prompt parts for ``spans`` (the chosen functions, the first the most
    suspicious): the first's suspicious lines best first, the failures, the failing tests'
    source, the pair (:func:`codur.patch.ranking.pair`) and the original's verdict."""
    loc = view.localization
    both, cross = ranking.pair(list(view.ranked), spans)
    first = spans[0]
    lines = sorted({ln for (f, ln), _ in loc.scores.items() if f == first.file
                    and any(s.start <= ln <= s.end for s in spans)},
                   key=lambda ln: -loc.scores[(first.file, ln)])
    return PromptParts(spans, view.original(first.file), view.failures or "\n".join(loc.failing[:5]),
                       test_source(view.original, loc.failing), lines, view.settings.sample_format, view.task,
                       texts={s.file: view.original(s.file) for s in both}, pair=both, pair_first=cross,
                       verdict=tuple((t.nodeid, t.message) for t in loc.tests
                                     if t.outcome == "failed")[:MAX_FAILURES])


class _Verdicts:
    """The sampler's :class:`codur.patch.conversation.Verdicts`, read from the fixer's view."""

    def __init__(self, view: FixerView, parts: PromptParts) -> None:
        self.view, self.parts = view, parts
        self.failing = len(view.localization.failing)

    def stopped(self) -> bool:
        return self.view.stopped()

    def near_miss(self) -> bool:
        return bool(self.view.near_misses())

    def judged(self) -> list[Judged]:
        verdicts = self.view.verdicts()
        near_mutants = [(j.candidate, j.evaluation) for j in verdicts
                        if j.source == "mutation" and j.evaluation.status is CandidateVerdict.NEAR_MISS]
        samples = [Judged(j.candidate, e.status, e.fixed, self.failing, e.failures, e.broke)
                   for j in verdicts if j.source == "sampling" and (e := j.evaluation).status in JUDGED]
        return [*judged_mutants(near_mutants, self.parts, self.view.original, self.failing), *samples]


def judged_mutants(near: list[tuple[object, Evaluation]], parts: PromptParts, original: Callable[[str], str],
                   failing: int) -> list[Judged]:
    """The near-miss mutants of the sampled functions (``near``: (mutant, evaluation) in the
    order they were judged) as judged answers a feedback sample continues from, the two that
    fixed most: an added statement is often half a fix (``return digits`` where
    ``return "+" + digits`` is due), and the tests' verdict on it says what is left. Each gets
    ``k = -1 - its index in near`` (a sample's k is never negative)."""
    sampled = {s.qualname for s in parts.spans}
    out = []
    for i, (mutant, evaluation) in sorted(enumerate(near), key=lambda ie: -ie[1][1].fixed)[:2]:
        try:
            text = mutant.apply(original(mutant.file))
            inside = [f.qualname for f in functions(text, mutant.file)
                      if f.qualname in sampled and f.start <= mutant.line <= f.end]
        except (SyntaxError, ValueError):
            continue
        if inside:
            sample = Sample(mutant.file, text, -1 - i, 0.0, "mutant", (inside[0],))
            out.append(Judged(sample, evaluation.status, evaluation.fixed, failing, evaluation.failures,
                              evaluation.broke))
    return out
