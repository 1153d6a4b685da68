"""What one search of the candidate-patch pipeline carries from phase to phase
(:class:`SearchRun`), a phase (:class:`Phase`), and the queue keys of a model fixer's
backfill (:func:`is_backfill`). Used by :class:`codur.patch.pipeline.PatchPipeline` alone."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codur.patch.chain import Chain
from codur.validate.evaluate import Candidate
from codur.validate.session import RepairSession


@dataclass
class SearchRun:
    """One search's session, ranked functions, seconds per phase, per fixer the candidates
    it left untried (best first), and its near-miss mutants (:class:`Chain`)."""

    session: RepairSession
    ranked: tuple
    phases: dict[str, float]
    untried: dict[str, list[tuple[Any, Candidate]]] = field(default_factory=dict)
    chain: Chain | None = None  # the near misses joined (codur.patch.chain)


@dataclass(frozen=True)
class Phase:
    """A phase of the search: its ``name`` (its key in ``phases``), the fixer its candidates
    count under when their provenance names none, and when it ends (``time.monotonic()``)."""

    name: str
    source: str
    deadline: float


def is_backfill(key: Any) -> bool:
    """A model fixer's queue key of an earlier fixer's untried candidate (its own: (0, n);
    a backfill: (1, owner index, key))."""
    return key[0] == 1
