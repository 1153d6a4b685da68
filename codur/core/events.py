"""One event stream: nodes, tools, models and the repair engine emit envelopes through
LangGraph's custom stream; the runner writes each to the trace and hands it to the CLI.

Every event is a dict with the same envelope::

    {"event_type": "tool.call", "run_id": "20261122-...", "ts": 1795000000.123, ...fields}

``event_type`` names the event (``engine.state``, ``tool.call``, ``model.start``,
``model.call``, ``agent.reply``, ``patch.*``, ``repair.*``, ``run.start``, ``run.end``);
``run_id`` is the run's id; ``ts`` is Unix time, seconds. :func:`emit` fills ``ts``
and ``run_id`` (from the graph's run config: ``configurable.codur_run_id``, else the
thread id, which is what LangGraph Studio sets). Outside a graph run events go nowhere
(``get_stream_writer`` is only available inside a node). A graph run with no engine behind it
(Studio) also writes each event to its own trace (:func:`recording`).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

#: Where the events of this context go besides the stream: a graph run without an engine
#: (Studio) writes its own trace (:func:`recording`).
_SINK: ContextVar[Callable[[dict[str, Any]], None] | None] = ContextVar("codur_event_sink", default=None)


@contextlib.contextmanager
def recording(sink: Callable[[dict[str, Any]], None] | None) -> Iterator[None]:
    """Within the block, every event :func:`emit` sends also goes to ``sink`` (None: nowhere);
    threads started with a copy of this context (as LangGraph's are) send there too."""
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
    """Whether ``event`` is an ``engine.state`` event of a node starting (``phase`` ``enter``;
    traces written before the exit events existed have no phase, the oldest say ``event``)."""
    kind = event.get("event_type") or event.get("event")
    return kind == "engine.state" and event.get("phase", "enter") == "enter"


def envelope(event_type: str, run_id: str = "", **fields: Any) -> dict[str, Any]:
    """A new event: ``{"event_type", "run_id", "ts", **fields}``."""
    return {"event_type": event_type, "run_id": run_id, "ts": round(time.time(), 3), **fields}


def current_run_id() -> str:
    """The run id of the graph run this thread is in ('' outside one)."""
    try:
        from langgraph.config import get_config

        configurable = get_config().get("configurable", {})
    except (RuntimeError, ImportError):
        return ""
    return str(configurable.get("codur_run_id") or configurable.get("thread_id") or "")


def emit(event: dict[str, Any]) -> bool:
    """Send ``event`` (``{"event_type": ..., ...}``) to the custom stream of the running graph,
    with ``run_id`` and ``ts`` filled in; a no-op outside a graph run. True when sent."""
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except (RuntimeError, ImportError):
        return False
    full = {"event_type": event.get("event_type", ""), "run_id": event.get("run_id") or current_run_id(),
            "ts": round(time.time(), 3), **{k: v for k, v in event.items() if k not in ("event_type", "run_id")}}
    writer(full)
    if (sink := _SINK.get()) is not None:
        sink(full)
    return True


class TraceWriter:
    """Appends events as JSON lines to ``path`` (flushed per event, so a crash keeps the trace)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._f = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open for the whole run, closed by close()

    def write(self, event: dict[str, Any]) -> None:
        """Append one event; after :meth:`close` (a graph thread outliving its run) it is dropped."""
        if self._f.closed:
            return
        self._f.write(json.dumps(event, default=str) + "\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()
