"""The gate that counts a run's tool calls and writes in flight and stops new ones once the run
is cancelled (:attr:`codur.tools.context.ToolContext.gate`; :meth:`codur.tools.executor.ToolExecutor.stop`
closes it)."""

from __future__ import annotations

import threading


class CallGate:
    """Counts the tool calls and writes in flight; refuses new ones once the cancel event is set."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._running = 0

    def enter(self, cancel: threading.Event) -> bool:
        """Count one more call in flight; False (nothing counted) once ``cancel`` is set."""
        with self._cond:
            if cancel.is_set():
                return False
            self._running += 1
            return True

    def leave(self) -> None:
        with self._cond:
            self._running -= 1
            self._cond.notify_all()

    def close(self, cancel: threading.Event, timeout_s: float) -> bool:
        """Set ``cancel`` and wait up to ``timeout_s`` seconds until nothing is in flight."""
        with self._cond:
            cancel.set()
            return self._cond.wait_for(lambda: self._running == 0, timeout_s)
