"""The one place where a run's limits are checked: turns, wall time, tokens, cancellation.

Called at every node's entry (by :func:`codur.graph.nodes.node`) and between the
agent's model calls, so a budget trips within one model call of being exceeded.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from codur.engine.contracts import RunStatus


@dataclass
class Limits:
    """A run's limits. ``started_at`` is time.monotonic() at the start of the run.

    Attributes:
        max_turns: Plan→Act→Verify cycles; the next Act past it ends the run (failed, max_turns).
        timeout_s: wall-clock seconds (status timeout).
        token_budget: prompt + completion tokens (status budget_exceeded).
        cancel: set it to stop the run (status cancelled), e.g. on Ctrl-C.
    """

    max_turns: int = 3
    timeout_s: float = 1200.0
    token_budget: int = 300_000
    started_at: float = field(default_factory=time.monotonic)
    cancel: threading.Event = field(default_factory=threading.Event)

    def elapsed_s(self) -> float:
        return time.monotonic() - self.started_at


def check(limits: Limits, *, tokens: int, turn: int, starting_turn: bool = False) -> tuple[RunStatus, str] | None:
    """Return (status, reason) when a limit is hit, else None.

    Args:
        tokens: tokens used so far in the run.
        turn: turns started so far.
        starting_turn: True when the caller is about to start a new turn (delegate).
    """
    if limits.cancel.is_set():
        return RunStatus.CANCELLED, "cancelled"
    if limits.elapsed_s() > limits.timeout_s:
        return RunStatus.TIMEOUT, f"timeout after {limits.timeout_s:.0f}s"
    if tokens > limits.token_budget:
        return RunStatus.BUDGET_EXCEEDED, f"token budget of {limits.token_budget} exceeded ({tokens} used)"
    if starting_turn and turn >= limits.max_turns:
        return RunStatus.FAILED, "max_turns"
    return None
