"""The RLM budget: cost (USD), tokens, iterations, depth and wall time, shared down a tree of sub-RLMs.

One :class:`Budget` per executor. A child budget (:meth:`Budget.allocate`) gets a
share of its parent's remaining cost, tokens and time; usage recorded in a child
is charged to every ancestor too, so a parent always sees what its sub-calls
spent. Budgeted recursion follows Zhang, Kraska & Khattab, "Recursive Language Models" (2025).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from codur.core.usage import Usage, UsageLedger  # the run's ledger class keeps each budget's spend

Kind = Literal["iteration", "subcall", "call"]

class BudgetExceeded(RuntimeError):
    """A model call was refused because the budget (cost, tokens or time) is spent."""


@dataclass(frozen=True)
class BudgetLimits:
    """Limits of one executor. None means unlimited."""

    max_cost_usd: float | None = 1.0
    """Spend on model calls, USD (the local model costs 0)."""
    max_tokens: int | None = 200_000
    """Prompt + completion tokens over every call, sub-calls included."""
    max_iterations: int = 6
    """Model turns of this executor's REPL loop."""
    max_depth: int = 2
    """Deepest sub-RLM level; the root is depth 0, so 0 forbids rlm_query recursion."""
    max_wall_s: float | None = 600.0
    """Wall-clock time, seconds."""
    downgrade_threshold: float = 0.25
    """Below this fraction of budget left (0-1), rlm_query becomes a plain llm_query."""
    max_parallel: int = 4
    """Most sub-RLMs a batch_rlm_query runs at once."""


class Budget:
    """What one executor may still spend; thread-safe.

    Args:
        limits: this executor's limits.
        depth: 0 for the root executor.
        parent: the budget this one was allocated from (charged with all usage).
        clock: monotonic seconds (tests hand in a fake).
    """

    def __init__(self, limits: BudgetLimits | None = None, *, depth: int = 0, parent: Budget | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits or BudgetLimits()
        self.depth = depth
        self.parent = parent
        self.clock = clock
        self.started = clock()
        self.ledger = UsageLedger()
        self.iterations = 0
        self._lock = threading.Lock()
        self.final_answers = 0  # direct answers rlm_query gave past the root's cost or token limit

    def record(self, usage: Usage) -> None:
        """Charge ``usage`` to this budget and every ancestor."""
        budget: Budget | None = self
        while budget is not None:
            budget.ledger.record(usage)
            budget = budget.parent

    def start_iteration(self) -> None:
        """Count one REPL-loop iteration."""
        with self._lock:
            self.iterations += 1

    @property
    def spent(self) -> Usage:
        """What this budget and its children have spent so far."""
        return self.ledger.usage

    @property
    def elapsed_s(self) -> float:
        return self.clock() - self.started

    def remaining_cost_usd(self) -> float:
        limit = self.limits.max_cost_usd
        return math.inf if limit is None else max(limit - self.spent.cost_usd, 0.0)

    def remaining_tokens(self) -> float:
        limit = self.limits.max_tokens
        return math.inf if limit is None else max(limit - self.spent.total_tokens, 0)

    def remaining_wall_s(self) -> float:
        limit = self.limits.max_wall_s
        return math.inf if limit is None else max(limit - self.elapsed_s, 0.0)

    def remaining_fraction(self) -> float:
        """The smallest fraction left of cost, tokens and wall time (1.0 when nothing is limited)."""
        fractions = [1.0]
        for remaining, limit in ((self.remaining_cost_usd(), self.limits.max_cost_usd),
                                 (self.remaining_tokens(), self.limits.max_tokens),
                                 (self.remaining_wall_s(), self.limits.max_wall_s)):
            if limit is not None:
                fractions.append(remaining / limit if limit > 0 else 0.0)
        return min(fractions)

    def exhausted_reason(self) -> str | None:
        """Why no model call may run (cost, tokens or time spent here or in an ancestor), or None."""
        budget: Budget | None = self
        while budget is not None:
            where = "" if budget is self else f" (depth {budget.depth} budget)"
            if budget.limits.max_cost_usd is not None and budget.remaining_cost_usd() <= 0:
                return f"cost limit of ${budget.limits.max_cost_usd:.4f} reached{where}"
            if budget.limits.max_tokens is not None and budget.remaining_tokens() <= 0:
                return f"token limit of {budget.limits.max_tokens:,} reached{where}"
            if budget.limits.max_wall_s is not None and budget.remaining_wall_s() <= 0:
                return f"time limit of {budget.limits.max_wall_s:.0f}s reached{where}"
            budget = budget.parent
        return None

    def claim_final_answer(self) -> bool:
        """True for a root budget (depth 0) whose wall-clock time is not spent: rlm_query may give a
        direct answer past the root's cost or token limit (:mod:`codur.rlm.bridge`), each time it is
        called so (seed 001: "rlm_query ... budget exceeded → fall back to direct answer"); False at
        depth and past the wall-clock limit. Counts the claims in ``final_answers``. Thread-safe."""
        if self.parent is not None or (self.limits.max_wall_s is not None and self.remaining_wall_s() <= 0):
            return False
        with self._lock:
            self.final_answers += 1
        return True

    def check(self, kind: Kind) -> str | None:
        """Why ``kind`` may not proceed, or None when it may.

        ``iteration``: another REPL turn; ``subcall``: spawning a sub-RLM one level
        deeper; ``call``: a single model call (llm_query, a direct answer).
        """
        reason = self.exhausted_reason()
        if reason:
            return reason
        if kind == "iteration" and self.iterations >= self.limits.max_iterations:
            return f"iteration limit of {self.limits.max_iterations} reached"
        if kind == "subcall" and self.depth >= self.limits.max_depth:
            return f"depth limit of {self.limits.max_depth} reached"
        return None

    def can_proceed(self, kind: Kind) -> bool:
        """True when :meth:`check` finds nothing against ``kind``."""
        return self.check(kind) is None

    def should_downgrade(self) -> bool:
        """True when the fraction left is below ``limits.downgrade_threshold``: use llm_query, not rlm_query."""
        return self.remaining_fraction() < self.limits.downgrade_threshold

    def parallelism(self, tasks: int) -> int:
        """How many of ``tasks`` sub-RLMs run at once: ``max_parallel`` scaled by the fraction left, at least 1."""
        scaled = max(1, round(self.limits.max_parallel * self.remaining_fraction()))
        return max(1, min(tasks, self.limits.max_parallel, scaled))

    def allocate(self, share: float, *, max_iterations: int, wall_share: float | None = None) -> Budget:
        """A child budget one level deeper.

        Args:
            share: fraction (0-1] of the remaining cost and tokens the child may spend.
            max_iterations: the child's REPL-loop iterations.
            wall_share: fraction of the remaining wall time; default ``share``.
        """
        def part(value: float, fraction: float) -> float | None:
            return None if math.isinf(value) else value * fraction

        tokens = part(self.remaining_tokens(), share)
        limits = replace(
            self.limits,
            max_cost_usd=part(self.remaining_cost_usd(), share),
            max_tokens=None if tokens is None else int(tokens),
            max_wall_s=part(self.remaining_wall_s(), share if wall_share is None else wall_share),
            max_iterations=max_iterations,
        )
        return Budget(limits, depth=self.depth + 1, parent=self, clock=self.clock)

    def snapshot(self) -> dict:
        """What is spent and left, for prompts and traces."""
        def fmt(value: float) -> float | None:
            return None if math.isinf(value) else round(value, 6)

        return {
            "depth": self.depth, "max_depth": self.limits.max_depth,
            "iterations": self.iterations, "max_iterations": self.limits.max_iterations,
            "spent": self.spent.to_dict(),
            "remaining_cost_usd": fmt(self.remaining_cost_usd()),
            "remaining_tokens": fmt(self.remaining_tokens()),
            "remaining_wall_s": fmt(self.remaining_wall_s()),
            "remaining_fraction": round(self.remaining_fraction(), 3),
        }
