"""The run's one usage ledger: model calls (tokens, cost in USD, seconds) and the time split.

Every model call of a run — agent, planner, critic, patch sampler, RLM tool — is recorded in
the run's :class:`UsageLedger` by the callback the model provider attaches to each model
(:func:`codur.llm.usage.ledger_callback`, which prices the call by :mod:`codur.llm.pricing`).
The run's limits read it (:class:`codur.core.budget.Limits`), and the result carries its
figures (``RunResult.metadata.usage`` and ``.timings``); nothing else sums usage.

The time split is told, not guessed: the call that spends the seconds says so with
:meth:`UsageLedger.spent`, as OpenHands' ``Metrics`` is told each cost by the call that incurred
it. Every test run of the repo's tests (observe's, verify's, the test tool's) tells its wall
time as test time (:meth:`codur.tools.context.ToolContext.tests_ran`); a tool call that ran no
tests tells its duration as tool time (:class:`codur.tools.executor.ToolExecutor`); the patch
node tells the candidate-patch search's seconds as repair time; model time is the recorded
calls' seconds (:meth:`UsageLedger.record`).
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Any, Literal

#: The kinds of wall time a run's ``timings`` gives besides ``model_s`` and ``total_s``, seconds.
TIME_KINDS = ("tools_s", "tests_s", "repair_s")
TimeKind = Literal["tools_s", "tests_s", "repair_s"]


@dataclass
class Usage:
    """Tokens, cost (USD), model calls and the seconds spent in them, summed."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    model_s: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens,
                     self.cost_usd + other.cost_usd, self.calls + other.calls, self.model_s + other.model_s)

    def to_dict(self) -> dict:
        return {**asdict(self), "total_tokens": self.total_tokens, "cost_usd": round(self.cost_usd, 6),
                "model_s": round(self.model_s, 3)}


class UsageLedger:
    """A run's usage: every model call's :class:`Usage` and the wall time per kind; thread-safe."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.seconds = dict.fromkeys(TIME_KINDS, 0.0)
        self._lock = threading.Lock()

    def record(self, usage: Usage) -> None:
        """Add one model call's (or several calls') usage."""
        with self._lock:
            self.usage = self.usage + usage

    @property
    def total_tokens(self) -> int:
        """Prompt + completion tokens of every call so far."""
        return self.usage.total_tokens

    @property
    def cost_usd(self) -> float:
        """What every call so far cost, USD (0 for unpriced models)."""
        return self.usage.cost_usd

    def spent(self, kind: TimeKind, seconds: float) -> None:
        """Add ``seconds`` of wall time to ``kind`` of the time split, told by the call that spent
        them (see the module docstring).

        Raises:
            ValueError: ``kind`` is not one of :data:`TIME_KINDS`, or ``seconds`` is negative.
        """
        if kind not in self.seconds:
            raise ValueError(f"unknown kind of time {kind!r}: one of {', '.join(TIME_KINDS)}")
        if seconds < 0:
            raise ValueError(f"{kind}: negative seconds {seconds}")
        with self._lock:
            self.seconds[kind] += seconds

    def usage_figures(self) -> dict[str, Any]:
        """``RunResult.metadata.usage``: {llm_calls, input_tokens, output_tokens, total_tokens,
        cost_usd (USD), model_s (seconds)}."""
        figures = self.usage.to_dict()
        return {"llm_calls": figures.pop("calls"), **figures}

    def timings(self, total_s: float) -> dict[str, float]:
        """``RunResult.metadata.timings``: wall seconds {tools_s, tests_s, repair_s, model_s, total_s}
        of a run that took ``total_s`` seconds."""
        return {k: round(v, 3) for k, v in self.seconds.items()} | {
            "model_s": round(self.usage.model_s, 3), "total_s": round(total_s, 3)}
