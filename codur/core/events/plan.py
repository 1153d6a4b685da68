"""The plan node's events (codur/graph/planning/)."""

from __future__ import annotations

from dataclasses import dataclass

from codur.core.events.base import OMIT, Event


@dataclass(frozen=True, kw_only=True)
class PlanScope(Event, kind="plan.scope"):
    """Which failing tests the task is about, decided by the rules or a model (its ``reply``)."""

    decided_by: str
    related: list[str]
    unrelated: list[str]
    why: str
    reply: str = OMIT


@dataclass(frozen=True, kw_only=True)
class PlanFallback(Event, kind="plan.fallback"):
    """The planner model failed; the rules planned instead."""

    status: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class PlanReadOnly(Event, kind="plan.read_only"):
    """A read-only run of a task that needs an edit: it ends with a plan and a proposal."""

    task_type: str
    message: str
