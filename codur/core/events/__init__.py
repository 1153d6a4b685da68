"""One event stream: nodes, tools, models and the patch pipeline emit typed events through
LangGraph's custom stream; the runner writes each to the trace and hands it to the CLI.

An event is a frozen dataclass, one class per event type, grouped by module: :mod:`.run`
(``run.*``, ``engine.state``, ``storage.error``, ``memory.error``), :mod:`.agent`,
:mod:`.model`, :mod:`.plan`, :mod:`.tests`, :mod:`.verify`, :mod:`.patch`, :mod:`.tool`
(``tool.call``, ``secret.redacted``, ``sandbox.fallback``) and :mod:`.batch`;
:data:`EVENT_TYPES` holds them all by wire name. On the wire (the stream, ``--json``, the
trace) each is one dict with the same envelope, made by the one serializer :func:`wire`::

    {"event_type": "tool.call", "run_id": "20261122-...", "ts": 1795000000.123, ...fields}

``run_id`` is the run's id; ``ts`` is Unix time, seconds. :func:`emit` fills both (the run id
from the graph's run config: ``configurable.codur_run_id``, else the thread id, which is what
LangGraph Studio sets). Outside a graph run events go nowhere (``get_stream_writer`` is only
available inside a node). A graph run with no engine behind it (Studio) also writes each
event to its own trace (:func:`recording`). A reader takes a record back with :func:`parse`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from codur.core.events import agent, batch, model, patch, plan, run, tests, tool, verify  # noqa: F401 - registers
from codur.core.events.base import ENVELOPE, EVENT_TYPES, OMIT, Event, parse, wire

__all__ = ["ENGINE_STATES", "ENVELOPE", "EVENT_TYPES", "OMIT", "Event", "TraceWriter", "current_run_id", "emit",
           "parse", "recording", "state_entered", "wire"]

#: Where the events of this context go besides the stream: a graph run without an engine
#: (Studio) writes its own trace (:func:`recording`).
_SINK: ContextVar[Callable[[dict[str, Any]], None] | None] = ContextVar("codur_event_sink", default=None)


@contextlib.contextmanager
def recording(sink: Callable[[dict[str, Any]], None] | None) -> Iterator[None]:
    """Within the block, every event :func:`emit` sends also goes to ``sink`` (None: nowhere) as
    its wire record; threads started with a copy of this context (as LangGraph's are) send there too."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)

#: node -> engine state (the LocalEngine state machine), as ``engine.state`` events write it.
ENGINE_STATES = {
    "initialize": "initialize", "observe": "observe", "plan": "plan",
    "delegate": "act", "execute": "act", "patch": "act",
    "verify": "verify", "review": "verify", "done": "done",
}


def state_entered(event: dict[str, Any]) -> bool:
    """Whether the record ``event`` is an ``engine.state`` event of a node starting (``phase``
    ``enter``; traces written before the exit events existed have no phase, the oldest say ``event``)."""
    kind = event.get("event_type") or event.get("event")
    return kind == "engine.state" and event.get("phase", "enter") == "enter"


def current_run_id() -> str:
    """The run id of the graph run this thread is in ('' outside one)."""
    try:
        from langgraph.config import get_config

        configurable = get_config().get("configurable", {})
    except (RuntimeError, ImportError):
        return ""
    return str(configurable.get("codur_run_id") or configurable.get("thread_id") or "")


def emit(event: Event, run_id: str = "") -> bool:
    """Send ``event`` to the custom stream of the running graph as its wire record (:func:`wire`,
    under ``run_id``, default the graph run's); a no-op outside a graph run. True when sent.

    Raises:
        TypeError: ``event`` is not an :class:`Event` (a plain dict: declare its type).
    """
    if not isinstance(event, Event):
        raise TypeError(f"emit takes a codur.core.events.Event, not {type(event).__name__}: {event!r:.200}")
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except (RuntimeError, ImportError):
        return False
    record = wire(event, run_id or current_run_id())
    writer(record)
    if (sink := _SINK.get()) is not None:
        sink(record)
    return True


class TraceWriter:
    """Appends events as JSON lines to ``path`` (flushed per event, so a crash keeps the trace)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._f = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open for the whole run, closed by close()

    def write(self, event: dict[str, Any]) -> None:
        """Append one wire record (:func:`wire`); after :meth:`close` (a graph thread outliving
        its run) it is dropped."""
        if self._f.closed:
            return
        self._f.write(json.dumps(event, default=str) + "\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()
