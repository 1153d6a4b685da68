"""The candidate-patch pipeline's contract: how it searches (:class:`PatchSettings`, from a
run's settings), what it found (:class:`PatchResult`; when it found nothing, why its search
stopped: :class:`SearchEnd`) and what the graph's state keeps of it (:class:`PatchOutcome`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from codur.config import CodurConfig
from codur.core.contracts import PIPELINE_FIXERS, PatchStatus
from codur.core.fields import FieldAccess
from codur.validate.search import SearchStop


@dataclass(frozen=True)
class PatchSettings:
    """How the pipeline searches: a run's, from its settings (:meth:`from_config`).

    Attributes:
        fixers: which of "mutation", "sampling", "hybrid" run (in that order).
        workers: evaluation workers.
        time_box_s: seconds of mutation search before the model (the rest of the mutants run last).
        samples: model samples (K).
        time_budget_s: the whole search's seconds when no deadline is given.
        max_mutants, max_pairs: the mutation search's size: mutants at most, second-order ones
            among them at most, in its first tier.
        tiers: tiers of the mutation search; tier k, searched once every candidate was tried
            with time left, goes up to k × those sizes.
        model_tiers_first: the model fixers' tiers before the mutation tiers (default: after).
        model_box_s: seconds the model fixers' first tier may take, all of them together, from
            the first one's start (0: until the deadline); then the candidates left, the
            mutation tiers and the model's next tiers.
        max_lines: longest function shown whole to the model, lines.
        sample_format: what a sample writes ("function", "search_replace", "udiff").
        memory_mb: each test run's address-space limit, MiB (None: none).
        mutant_timeout_s: upper bound on one test stage of a candidate, seconds.
    """

    fixers: tuple[str, ...]
    workers: int
    time_box_s: float
    samples: int
    time_budget_s: float
    max_mutants: int
    max_pairs: int
    max_lines: int
    sample_format: str
    memory_mb: int | None
    mutant_timeout_s: float
    tiers: int = 1
    model_tiers_first: bool = False
    model_box_s: float = 150.0

    @classmethod
    def from_config(cls, config: CodurConfig) -> PatchSettings:
        """The settings ``fixers`` (those of :data:`codur.core.contracts.PIPELINE_FIXERS`),
        ``repair_workers``, ``mutation_time_box_s``,
        ``samples``, ``patch_time_budget_s``, ``max_mutants``, ``max_pairs``, ``sample_max_lines``,
        ``sample_format``, ``test_memory_mb`` (0: none), ``mutant_timeout_s``, ``mutant_tiers``,
        ``model_tiers_first`` and ``model_time_box_s``."""
        return cls(fixers=tuple(f for f in PIPELINE_FIXERS if f in config.fixers), workers=config.repair_workers,
                   time_box_s=config.mutation_time_box_s, samples=config.samples,
                   time_budget_s=config.patch_time_budget_s, max_mutants=config.max_mutants,
                   max_pairs=config.max_pairs, max_lines=config.sample_max_lines, sample_format=config.sample_format,
                   memory_mb=config.test_memory_mb or None, mutant_timeout_s=config.mutant_timeout_s,
                   tiers=config.mutant_tiers, model_tiers_first=config.model_tiers_first,
                   model_box_s=config.model_time_box_s)


class Queued(NamedTuple):
    """The mutants a search queued (at most ``max_mutants``), and the second-order ones among them."""

    mutants: int = 0
    pairs: int = 0


@dataclass(frozen=True)
class SearchEnd:
    """Why a search that found no plausible patch stopped, with the figures.

    Attributes:
        stopped: :class:`SearchStop` ``budget`` (a budget was spent with candidates left),
            ``exhausted`` (every candidate was tried, none left out) or ``cancelled``.
        spent: for ``budget``, which one: ``time`` (the search's ``time_budget_s``), ``tokens``
            (the run's token or cost budget) or ``mutants`` (``max_mutants`` / ``max_pairs`` left
            mutants out); "" otherwise.
        tried: candidates tested (every fixer's).
        mutants: mutants the mutation fixer queued, every tier's (0 when it did not run).
        time_budget_s: the search's wall-time budget, seconds.
        max_mutants, max_pairs: the mutation search's size (mutants at most, second-order ones
            among them at most, in its first tier).
        tiers: the mutation search's tiers (tier k goes up to k × those sizes).
    """

    stopped: SearchStop
    spent: str
    tried: int
    mutants: int
    time_budget_s: float
    max_mutants: int
    max_pairs: int
    tiers: int = 1

    @classmethod
    def of(cls, status: PatchStatus, settings: PatchSettings, *, tried: int, queued: Queued,
           token_budget: bool = False) -> SearchEnd:
        """The end of a search that ended ``status`` (``cancelled``, ``budget`` or ``not_found``)
        after ``tried`` candidates, with ``queued`` mutants; ``token_budget``: the run's token
        budget stopped it. A ``not_found`` search whose mutant queues hold ``tiers × max_mutants``
        mutants, or ``tiers × max_pairs`` second-order ones, was cut by the mutant budget (more
        mutants exist): its end is ``budget``, else ``exhausted``.

        Raises:
            ValueError: ``status`` is not one a search without a patch ends with.
        """
        if status is PatchStatus.CANCELLED:
            stopped, spent = SearchStop.CANCELLED, ""
        elif status is PatchStatus.BUDGET:
            stopped, spent = SearchStop.BUDGET, "tokens" if token_budget else "time"
        elif status is PatchStatus.NOT_FOUND:
            tiers = settings.tiers  # every tier searched: the last one's budgets
            cut = queued.mutants >= settings.max_mutants * tiers or 0 < settings.max_pairs * tiers <= queued.pairs
            stopped, spent = (SearchStop.BUDGET, "mutants") if cut else (SearchStop.EXHAUSTED, "")
        else:
            raise ValueError(f"a search that ended {status.value!r} did not stop for want of a patch")
        return cls(stopped, spent, tried, queued.mutants, settings.time_budget_s, settings.max_mutants,
                   settings.max_pairs, settings.tiers)

    @property
    def message(self) -> str:
        """The end in words, e.g. ``gave up: the time budget of 60 s ran out after 12 of 50 mutants``."""
        if self.stopped is SearchStop.CANCELLED:
            return "search cancelled; repository unchanged"
        if self.spent == "time":
            return (f"gave up: the time budget of {self.time_budget_s:g} s ran out after {self.tried} of "
                    f"{self.mutants} mutants")
        if self.spent == "tokens":
            return f"gave up: the run's token budget ran out after {self.tried} candidates"
        if self.spent == "mutants":
            return (f"gave up: the mutant budget is spent: none of the {self.mutants} mutants allowed "
                    f"(max_mutants={self.max_mutants}, max_pairs={self.max_pairs}, tiers={self.tiers}) passes, "
                    "and more exist")
        return f"gave up: search exhausted: none of the {self.mutants} mutants passes, and there are no more"

    def as_dict(self) -> dict:
        """The JSON form kept in the run's result (``metadata.stop["search"]``): ``stopped``,
        ``spent``, ``message`` and the figures."""
        return {"stopped": self.stopped.value, "spent": self.spent, "message": self.message, "tried": self.tried,
                "mutants": self.mutants, "time_budget_s": self.time_budget_s, "max_mutants": self.max_mutants,
                "max_pairs": self.max_pairs, "tiers": self.tiers}


@dataclass
class PatchResult:
    """What the pipeline found.

    ``status``: how the search ended (:class:`codur.core.contracts.PatchStatus`; ``budget``:
    the run's token budget or wall time ran out). ``diff``: the winner's
    unified diff (every file it changes); ``file``: its first file, ``files``: all of
    them. ``source``: "mutation", "sampling" or "hybrid"; ``provenance``: its details
    (operator, sample index, temperature, prompt variant). ``tried``: candidates tested
    per source; ``refused``: why each refused candidate was refused (``edited tests/test_x.py``,
    ``emptied parse()``: :mod:`codur.validate.footprint`), in the order tested. ``near_miss``:
    the best near miss (label, fixed, failing, diff) or None. ``functions``: the most suspicious functions across files
    (:func:`codur.patch.ranking.summary`). ``tokens`` and ``llm_calls`` count the
    sampler's model calls; seconds are wall time. ``end``: why a search that found nothing
    stopped (:class:`SearchEnd`: budget, exhausted or cancelled, with the figures); None when
    a patch was found or no search ran (no failing tests, an error). ``held``: the winner's
    anti-patterns when it was held back (:meth:`codur.validate.antipatterns.Finding.as_dict`:
    kind, path, line, text, refused, description), else [].
    """

    status: PatchStatus
    diff: str = ""
    file: str = ""
    files: list[str] = field(default_factory=list)
    label: str = ""
    source: str = ""
    provenance: dict = field(default_factory=dict)
    tried: dict[str, int] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)
    near_miss: dict | None = None
    failing: list[str] = field(default_factory=list)
    suspicious: list[tuple[str, int, float]] = field(default_factory=list)
    functions: list[dict] = field(default_factory=list)
    llm_calls: int = 0
    tokens: int = 0
    elapsed_s: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)
    message: str = ""
    end: SearchEnd | None = None
    held: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.status = PatchStatus(self.status)


class _Record(FieldAccess, BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class NearMiss(_Record):
    """The best near miss of a search: a candidate that made ``fixed`` of the ``failing``
    failing tests pass and broke none (not applied).

    Attributes:
        label: what it is (e.g. ``calc.py: total rewritten by model sample 2``); provenance: its
            fixer's details; files: the files it changes; diff: its unified diff.
    """

    label: str
    fixed: int
    failing: int
    provenance: dict[str, Any] = Field(default_factory=dict)
    files: list[str] = Field(default_factory=list)
    diff: str = ""


class PatchOutcome(_Record):
    """What the graph's state keeps of a search (the state's ``patch``, written by the patch
    node; read it with :func:`codur.graph.state.patch_of`): a frozen record whose fields also
    read as a mapping (:class:`codur.core.fields.FieldAccess`).

    Attributes:
        status: how the search ended (:class:`codur.core.contracts.PatchStatus`; ``error`` too
            when a plausible patch could not be applied).
        source: the winner's fixer ("" when none); label: the winner's label; provenance: its
            fixer's details.
        tried: candidates tested per fixer; refused: why each refused candidate was refused
            (:mod:`codur.validate.footprint`), in the order tested.
        phases: seconds each phase took, by phase name; elapsed_s: the search's seconds.
        near_miss: the best near miss (:class:`NearMiss`), or None.
        end: why a search that found nothing stopped (:class:`SearchEnd`), or None.
        held: the applied patch's anti-patterns when it was held back (:attr:`PatchResult.held`).
    """

    status: PatchStatus
    source: str = ""
    label: str = ""
    provenance: dict[str, Any] = Field(default_factory=dict)
    tried: dict[str, int] = Field(default_factory=dict)
    refused: list[str] = Field(default_factory=list)
    phases: dict[str, float] = Field(default_factory=dict)
    elapsed_s: float = 0.0
    near_miss: NearMiss | None = None
    end: SearchEnd | None = None
    held: list[dict[str, Any]] = Field(default_factory=list)

    @classmethod
    def of(cls, value: Any) -> PatchOutcome | None:
        """A state value as its record: None stays None, a dict (Studio's input, an older
        checkpoint) is validated (raises pydantic's ValidationError when it does not fit)."""
        if value is None or isinstance(value, cls):
            return value
        return cls.model_validate(value)

    @classmethod
    def from_result(cls, result: PatchResult, status: PatchStatus | None = None) -> PatchOutcome:
        """The record of ``result``, with ``status`` instead of its own when given (the patch
        could not be applied)."""
        return cls(status=status or result.status, source=result.source, label=result.label,
                   provenance=result.provenance, tried=result.tried, refused=result.refused, phases=result.phases,
                   elapsed_s=result.elapsed_s, near_miss=result.near_miss, end=result.end, held=result.held)


def why_unsolved(status: PatchStatus, tried: int) -> str:
    """The message of a search that ended with ``status`` and no patch, ``tried`` candidates."""
    if status is PatchStatus.CANCELLED:
        return "cancelled; repository unchanged"
    if status is PatchStatus.BUDGET:
        return "the search's time or token budget ran out"
    return f"no plausible patch among {tried} candidates"
