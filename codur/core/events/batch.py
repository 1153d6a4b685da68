"""``codur batch``'s events (codur/batch/): written as JSON lines with ``ts`` last and no run id."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codur.core.events.base import OMIT, Event


@dataclass(frozen=True, kw_only=True)
class BatchStarted(Event, kind="batch.started"):
    """The batch started: tasks in all, already done, queued, workers."""

    total: int
    skipped: int
    queued: int
    workers: int


@dataclass(frozen=True, kw_only=True)
class BatchModelServer(Event, kind="batch.model_server"):
    """One embedded model server for the workers (url, slots, context size in tokens) or why it did not start."""

    url: str = OMIT
    slots: int = OMIT
    n_ctx: int = OMIT
    error: str = OMIT


@dataclass(frozen=True, kw_only=True)
class TaskStarted(Event, kind="task.started"):
    """A task started."""

    id: str
    running: int
    queued: int


@dataclass(frozen=True, kw_only=True)
class TaskFinished(Event, kind="task.finished"):
    """A task ended: its stored record."""

    record: dict[str, Any]
    running: int
    queued: int


@dataclass(frozen=True, kw_only=True)
class TaskLost(Event, kind="task.lost"):
    """A task ended without a result (it runs again on restart)."""

    id: str
    error: str


@dataclass(frozen=True, kw_only=True)
class TaskInvalid(Event, kind="task.invalid"):
    """A line of the task file that is not a task."""

    line: int
    error: str


@dataclass(frozen=True, kw_only=True)
class BatchTick(Event, kind="batch.tick"):
    """Tasks running and queued."""

    running: int
    queued: int


@dataclass(frozen=True, kw_only=True)
class BatchStopped(Event, kind="batch.stopped"):
    """A cap stopped the batch: which, and the figures then (tokens, USD, seconds)."""

    reason: str
    tokens: int
    cost_usd: float
    elapsed_s: float


@dataclass(frozen=True, kw_only=True)
class BatchFinished(Event, kind="batch.finished"):
    """The batch ended: the fields of :class:`codur.batch.runner.BatchSummary`."""

    total: int
    skipped: int
    ran: int
    lost: int
    not_started: int
    solved: int
    by_fixer: dict[str, int]
    by_status: dict[str, int]
    median_s: float
    tokens: int
    cost_usd: float
    elapsed_s: float
    stopped: str
