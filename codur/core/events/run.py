"""The run's own events (the engine's and a graph run's record) and the graph's node events."""

from __future__ import annotations

from dataclasses import dataclass

from codur.core.events.base import OMIT, Event


@dataclass(frozen=True, kw_only=True)
class RunStart(Event, kind="run.start"):
    """A run started: its task, repo and folder; ``resume``, ``session_id`` and ``note`` from the engine,
    ``source`` ``graph`` from a graph run that keeps its own record."""

    task: str
    repo: str
    run_dir: str
    resume: bool = OMIT
    source: str = OMIT
    session_id: str = OMIT
    note: str = OMIT


@dataclass(frozen=True, kw_only=True)
class RunEnd(Event, kind="run.end"):
    """A run ended: its status and reason."""

    status: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class RunReverted(Event, kind="run.reverted"):
    """A failed run's edits were put back: the files, and where the attempt is kept."""

    files: list[str]
    attempt: str


@dataclass(frozen=True, kw_only=True)
class RunResumed(Event, kind="run.resumed"):
    """A run went on from its checkpoint: the checkpoint's id, the node(s) it was to run next,
    ``rechecked`` (why it verifies the repo again first, or ""), and ``put_back``: the files its
    first start's end had put back (a cancel or failure reverts the edits), which it finds as they are."""

    checkpoint: str
    next: list[str]
    rechecked: str
    put_back: list[str]


@dataclass(frozen=True, kw_only=True)
class EngineState(Event, kind="engine.state"):
    """A node entered (``phase`` ``enter``) or left (``exit``, with its ``seconds`` and, when it raised, the
    ``error``): its engine state (:data:`codur.core.events.ENGINE_STATES`), the node, the turn and the status."""

    state: str
    node: str
    turn: int
    phase: str
    status: str
    seconds: float = OMIT
    error: str = OMIT


@dataclass(frozen=True, kw_only=True)
class StorageFailed(Event, kind="storage.error"):
    """The run list in the database could not be written (the run goes on)."""

    error: str


@dataclass(frozen=True, kw_only=True)
class MemoryFailed(Event, kind="memory.error"):
    """The session memory could not be read or written (the run goes on)."""

    error: str
