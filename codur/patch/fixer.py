"""What a fixer of the candidate-patch pipeline is (:class:`Fixer`) and what it sees of the
search (:class:`FixerView`).

A fixer only proposes: ``candidates(view)`` returns its candidate patches, best first. The
pipeline (:class:`codur.patch.PatchPipeline`) alone schedules the fixers, searches their
candidates on the workers, counts them and keeps the near misses; a fixer reads those back
through its view. The list of fixers, in cost order, is :data:`codur.patch.fixers.FIXERS`.
Design after aider's coders: one small class per way of editing, chosen by an attribute.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel

from codur.core.events import Event
from codur.validate.evaluate import Candidate, Evaluation
from codur.validate.localize import Localization

if TYPE_CHECKING:
    from codur.patch.contracts import PatchSettings
    from codur.patch.splice import FunctionSpan


@runtime_checkable
class ModelCall(Protocol):
    """One model call of a fixer that calls a model (e.g. :class:`codur.patch.sampling.Drawn`):
    the pipeline counts its ``tokens`` (prompt + completion) and the call, emits its
    ``event()`` and tests its ``candidate`` (None: the reply gave none)."""

    tokens: int

    @property
    def candidate(self) -> Candidate | None: ...

    def event(self) -> dict: ...


@dataclass(frozen=True)
class Asked:
    """One model call of a fixer that calls a model (a :class:`ModelCall`): the draw's number ``k``
    and ``temperature``; ``outcome``: "candidate" (``sample`` is the candidate), else why there is
    none ("duplicate", "unchanged", ..., "error": the call failed); ``seconds``; ``tokens``
    (prompt + completion); the ``reply``; ``error`` (how the call failed, or why the reply gave
    nothing). Each fixer's record adds what its draw was (:class:`codur.patch.sampling.Drawn`,
    :class:`codur.patch.fixers.cloze.Filled`)."""

    k: int
    temperature: float
    outcome: str
    seconds: float
    tokens: int
    reply: str = ""
    sample: Any = None
    error: str = ""

    @property
    def candidate(self) -> Any:
        """The candidate this call produced (None: none to test)."""
        return self.sample

    def said(self) -> dict[str, str]:
        """The event's ``error`` field, when there is one."""
        return {"error": self.error} if self.error else {}


def timed(call: Callable[[], tuple[str, int]]) -> tuple[str, int, float, str]:
    """``call()``, a model call giving (reply, tokens), timed: (reply, tokens, seconds, error). A
    call that raised gives ("", 0, its seconds, "Type: message" cut to 300 characters): the fixer
    records it as an "error" call and goes on or stops by its own rule."""
    start = time.monotonic()
    try:
        reply, tokens = call()
    except Exception as exc:  # noqa: BLE001 - a failed call is the fixer's record, not the search's end
        return "", 0, time.monotonic() - start, f"{type(exc).__name__}: {exc}"[:300]
    return reply, tokens, time.monotonic() - start, ""


@dataclass(frozen=True)
class Judgement:
    """The tests' verdict on one candidate of the search: its ``evaluation``
    (:class:`codur.validate.evaluate.Evaluation`) and the fixer it counts under (``source``:
    its ``provenance["source"]``)."""

    candidate: Any
    evaluation: Evaluation
    source: str


@dataclass(frozen=True)
class FixerView:
    """What a fixer sees of one search (built by the pipeline for each fixer, read only).

    Attributes:
        repo: the repository (never written).
        localization: fault localization's result (failing tests, suspiciousness per line).
        ranked: the most suspicious functions across files with their scores
            (:func:`codur.patch.ranking.rank_functions`), best first.
        failures: the failing tests' report shown to a model ("" : none given).
        task: the user's request.
        settings: how the pipeline searches (:class:`codur.patch.PatchSettings`).
        models: returns the chat models to sample from (the actor role's fallback chain; may
            raise when no model can start), or None when the run has none.
        deadline: ``time.monotonic()`` by which the search ends.
        original: a file's original text (``rel -> str``; raises OSError / ValueError).
        emit: the pipeline's progress events (``patch.*`` dicts).
        backfill: how many candidates of earlier fixers, left untried, are tested beside this
            fixer's (a fixer that calls a model; 0 otherwise).
        near_misses: the near misses so far, every fixer's, as (candidate, failing tests it
            fixed), in the order judged.
        verdicts: every verdict so far (:class:`Judgement`), in the order judged.
        stopped: True once this fixer's candidates are no longer wanted (the search found a
            plausible patch, or was cancelled, or ran out of time or tokens).
    """

    repo: Path
    localization: Localization
    ranked: tuple[tuple[FunctionSpan, float], ...]
    failures: str
    task: str
    settings: PatchSettings
    models: Callable[[], list[BaseChatModel]] | None
    deadline: float
    original: Callable[[str], str]
    emit: Callable[[Event], None]
    backfill: int
    near_misses: Callable[[], list[tuple[Any, int]]]
    verdicts: Callable[[], list[Judgement]]
    stopped: Callable[[], bool]


class Fixer(Protocol):
    """A fixer of the candidate-patch pipeline.

    Attributes:
        name: as the setting ``fixers`` takes it; its candidates' ``provenance["source"]``.
        calls_model: its candidates come from model calls: the pipeline runs it only when
            the run has models, tests its candidates while it draws the next (its iterable is
            consumed on a thread of its own, with the earlier fixers' untried candidates beside
            it on the cores the model leaves), and time-boxes an earlier fixer that calls none
            (``PatchSettings.time_box_s``).

    A fixer may also have tiers: ``more(view, tier)`` (tier 2, 3, ...) returns the candidates
    a count budget kept out of its first list, asked for once every candidate was tried with
    time left ([]: none left; :meth:`codur.patch.fixers.mutation.MutationFixer.more`).
    """

    name: str
    calls_model: bool

    def candidates(self, view: FixerView) -> Iterable[Candidate | ModelCall]:
        """This fixer's candidates, best first (a fixer that calls a model also yields its
        :class:`ModelCall` records). Called once per search, on the search's thread; a fixer
        with nothing to try returns an empty list (no phase runs). A model fixer returns an
        iterator: its work before returning runs before the phase starts, its iteration while
        its candidates are tested."""
        ...
