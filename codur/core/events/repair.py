"""The mutation engine on its own (codur/repair/engine.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codur.core.events.base import OMIT, Event


@dataclass(frozen=True, kw_only=True)
class RepairStart(Event, kind="repair.start"):
    """The engine started on a repo with workers."""

    repo: str
    workers: int


@dataclass(frozen=True, kw_only=True)
class RepairLocalized(Event, kind="repair.localized"):
    """Its fault localization: failing tests, suspicious lines, seconds."""

    failing_tests: list[str]
    suspicious: list[Any]
    elapsed_s: float


@dataclass(frozen=True, kw_only=True)
class RepairMutants(Event, kind="repair.mutants"):
    """The mutants to test, the pairs and their budget."""

    count: int
    pairs: int
    pair_budget: int
    over_budget: int


@dataclass(frozen=True, kw_only=True)
class RepairMutant(Event, kind="repair.mutant"):
    """One mutant judged."""

    index: int
    file: str
    line: int
    operator: str
    description: str
    result: str
    reason: str = OMIT


@dataclass(frozen=True, kw_only=True)
class RepairPatch(Event, kind="repair.patch"):
    """The plausible patch found."""

    file: str
    line: int
    description: str
    diff: str


@dataclass(frozen=True, kw_only=True)
class RepairDone(Event, kind="repair.done"):
    """The engine ended: status, why it stopped, mutants tried, seconds."""

    status: str
    stopped: str
    mutants_tried: int
    elapsed_s: float
    message: str
