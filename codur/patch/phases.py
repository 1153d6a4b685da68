"""What one search of the candidate-patch pipeline carries from phase to phase
(:class:`SearchRun`), a phase (:class:`Phase`), the model fixers' time box (:class:`ModelBox`),
the queue keys of a model fixer's backfill (:func:`is_backfill`), the models built once for every
model fixer (:func:`once`), and a result's diffs (:func:`diff_of`, :func:`best_near_miss`).
Used by :class:`codur.patch.pipeline.PatchPipeline` alone."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from codur.patch.chain import Chain
from codur.validate.diffs import unified_diffs
from codur.validate.evaluate import Candidate, apply_files, files_of
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


@dataclass
class ModelBox:
    """When the model fixers' first tier ends (``time.monotonic()``): ``seconds`` after the first of
    them began, at most ``deadline``; ``seconds`` 0: at the deadline. Past it, a model fixer's first
    tier does not start, and the one under way stops; the candidates left, the mutation tiers and
    the model's next tiers have the rest (AGENTIC_LOGIC.md, step 5b)."""

    deadline: float
    seconds: float
    began: float | None = None

    def until(self) -> float:
        """The end of the box (its clock starts at the first call)."""
        if self.began is None:
            self.began = time.monotonic()
        return min(self.deadline, self.began + self.seconds) if self.seconds > 0 else self.deadline

    def over(self) -> bool:
        """The box began and its time is up."""
        return self.began is not None and time.monotonic() >= self.until()


def is_backfill(key: Any) -> bool:
    """A model fixer's queue key of an earlier fixer's untried candidate (its own: (0, n);
    a backfill: (1, owner index, key))."""
    return key[0] == 1


T = TypeVar("T")


def once(build: Callable[[], T]) -> Callable[[], T]:
    """``build`` called on the first call alone: later calls (another model fixer's) return its
    result, or raise its exception again (a model that could not start is not started twice)."""
    lock, done = threading.Lock(), []

    def built() -> T:
        with lock:
            if not done:
                try:
                    done.append((build(), None))
                except Exception as exc:  # noqa: BLE001 - raised again below, and to every later caller
                    done.append((None, exc))
        value, exc = done[0]
        if exc is not None:
            raise exc
        return value

    return built


def diff_of(session: RepairSession, candidate: Candidate) -> str:
    """The unified diff of every file ``candidate`` changes, against the session's originals."""
    originals = {f: session.original(f) for f in files_of(candidate)}
    return unified_diffs(originals, apply_files(candidate, originals))


def best_near_miss(session: RepairSession, near: list[tuple[Any, int]], failing: int) -> dict:
    """The result's ``near_miss``: of ``near`` (candidate, failing tests it fixed), the one that
    fixed the most (the earliest mutant on a tie), with its label, provenance, files and diff."""
    sample, fixed = sorted(near, key=lambda sf: (-sf[1], getattr(sf[0], "k", 0)))[0]
    return {"label": sample.label, "fixed": fixed, "failing": failing, "provenance": sample.provenance,
            "files": list(files_of(sample)), "diff": diff_of(session, sample)}


def next_tiers_after(fixer: Any, view: Any, left: list[tuple[Any, Any]], tiers: int) -> list:
    """The candidates of ``fixer``'s tiers 2 to ``tiers`` (its ``more(view, tiers)``, best first)
    that ``left`` (its untried (key, candidate) pairs) does not hold already: what the cores a
    model leaves test once the first tier is done, while the model writes ([]: no tiers, or no
    more). On bench/real two bugs that mutation tiers 2-3 fix alone in 62 and 101 s timed out at
    300 s while the model's own candidates took 230-280 s of it."""
    more = getattr(fixer, "more", None)
    if more is None or tiers < 2:
        return []
    queued = {getattr(c, "key", None) for _, c in left} - {None}
    return [c for c in more(view, tiers) if getattr(c, "key", None) is None or c.key not in queued]
