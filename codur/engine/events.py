"""One event path: nodes and tools emit dicts through LangGraph's custom stream.

The runner reads ``stream_mode="custom"`` and appends each event, timestamped, to
``<repo>/.codur/runs/<run_id>/trace.jsonl``. Outside a graph run the events go
nowhere (``get_stream_writer`` is only available inside a node).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

ENGINE_STATES = {
    "initialize": "Initialize", "observe": "Observe", "plan": "Plan",
    "delegate": "Act", "execute": "Act", "patch": "Act",
    "verify": "Verify", "review": "Verify", "done": "Done",
}


def emit(event: dict[str, Any]) -> None:
    """Send ``event`` to the custom stream of the running graph (no-op outside one)."""
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except (RuntimeError, ImportError):
        return
    writer({"ts": round(time.time(), 3), **event})


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
