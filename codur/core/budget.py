"""The one place where a run's limits are checked: turns, wall time, tokens, cancellation.

:meth:`Limits.stop` returns a :class:`Stop` (status, reason, figures) or None. It is
the only termination check: the node wrapper calls it at every node's entry
(:meth:`codur.graph.nodes.Node.run`), review asks it whether another turn may start, the
agent's tool loop calls it before each model call, and the RLM tool gets a child
budget cut from what is left (:meth:`Limits.remaining`). So a limit trips within one
model or tool call of being exceeded, and it always ends the run with the same
status and reason, whichever part noticed.

Tokens and cost are read from the run's usage ledger (:mod:`codur.core.usage`: every model
call, sub-calls of the RLM and model patch samples included); no caller counts them.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from codur.core.contracts import RunStatus, StopReason
from codur.core.usage import UsageLedger


@dataclass(frozen=True)
class Stop:
    """Why a run must end now.

    Attributes:
        status: the run's terminal status.
        reason: exactly one :class:`StopReason` word for a limit (``max_turns``, ``timeout``,
            ``token_budget``, ``cancelled``); review's other words (``stuck``) use Stop too.
        figures: the numbers behind it, e.g. ``{"elapsed_s": 31.2, "timeout_s": 30}`` or
            ``{"tokens": 1204, "token_budget": 1000}``; they go to the result's metadata.
    """

    status: RunStatus
    reason: str
    figures: dict[str, Any] = field(default_factory=dict)

    def update(self) -> dict[str, Any]:
        """The state update that ends the run with this stop."""
        return {"status": self.status.value, "reason": self.reason, "stop": dict(self.figures)}


@dataclass
class Limits:
    """A run's limits (the root budget). ``started_at`` is time.monotonic() at the start of the run.

    Attributes:
        max_turns: Plan→Act→Verify cycles; the next Act past it ends the run (failed, max_turns).
        timeout_s: wall-clock seconds (status timeout).
        token_budget: prompt + completion tokens (status budget_exceeded, reason token_budget).
        cancel: set it to stop the run (status cancelled), e.g. on Ctrl-C or ``RunRequest.cancel_event``.
        max_cost_usd: spend on model calls, USD (status budget_exceeded, reason cost_budget); None: no limit.
        ledger: the run's usage ledger, which the token and cost limits read (the model
            provider's: :attr:`codur.llm.factory.ModelProvider.ledger`).
    """

    max_turns: int = 3
    timeout_s: float = 1200.0
    token_budget: int = 300_000
    started_at: float = field(default_factory=time.monotonic)
    cancel: threading.Event = field(default_factory=threading.Event)
    max_cost_usd: float | None = None
    ledger: UsageLedger = field(default_factory=UsageLedger)

    def elapsed_s(self) -> float:
        return time.monotonic() - self.started_at

    def tokens(self) -> int:
        """Tokens used so far (prompt + completion, every model call): the ledger's total."""
        return self.ledger.total_tokens

    def stop(self, *, turn: int = 0, starting_turn: bool = False) -> Stop | None:
        """The :class:`Stop` when a limit is hit, else None.

        Args:
            turn: turns started so far.
            starting_turn: the caller is about to start a new turn (delegate), or asks whether one may start.
        """
        if self.cancel.is_set():
            return Stop(RunStatus.CANCELLED, StopReason.CANCELLED.value, {"elapsed_s": round(self.elapsed_s(), 3)})
        elapsed = self.elapsed_s()
        if elapsed > self.timeout_s:
            return Stop(RunStatus.TIMEOUT, StopReason.TIMEOUT.value,
                        {"elapsed_s": round(elapsed, 3), "timeout_s": self.timeout_s})
        used = self.tokens()
        if used > self.token_budget:
            return Stop(RunStatus.BUDGET_EXCEEDED, StopReason.TOKEN_BUDGET.value,
                        {"tokens": used, "token_budget": self.token_budget})
        if self.max_cost_usd is not None and (cost := self.ledger.cost_usd) > self.max_cost_usd:
            return Stop(RunStatus.BUDGET_EXCEEDED, StopReason.COST_BUDGET.value,
                        {"cost_usd": round(cost, 6), "max_cost_usd": self.max_cost_usd})
        if starting_turn and turn >= self.max_turns:
            return Stop(RunStatus.FAILED, StopReason.MAX_TURNS.value, {"turns": turn, "max_turns": self.max_turns})
        return None

    def remaining(self) -> tuple[int, float]:
        """(tokens, seconds) left: what a child budget (the RLM tool's) may spend at most."""
        return max(0, self.token_budget - self.tokens()), max(0.0, self.timeout_s - self.elapsed_s())
