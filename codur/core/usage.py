"""The run's one usage ledger: model calls (tokens, cost in USD, seconds) and the time split.

Every model call of a run — agent, planner, critic, patch sampler, RLM tool — is recorded in
the run's :class:`UsageLedger` by the callback the model provider attaches to each model
(:func:`codur.llm.usage.ledger_callback`, which prices the call by :mod:`codur.llm.pricing`).
The run's limits read it (:class:`codur.core.budget.Limits`), and the result carries its
figures (``RunResult.metadata.usage`` and ``.timings``); nothing else sums usage.

The time split has one rule, :meth:`UsageLedger.note`: a ``tool.call`` event's duration is
tool time unless the tool runs tests; every ``tests.run`` event's duration is test time (the
runs of observe, verify and the test tools); the seconds from ``patch.start`` to
``patch.done`` are repair time; model time is the recorded calls' seconds.
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from typing import Any

#: The kinds of wall time a run's ``timings`` gives besides ``model_s`` and ``total_s``, seconds.
TIME_KINDS = ("tools_s", "tests_s", "repair_s")


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
        self._patch_started: float | None = None
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

    def note(self, event: dict[str, Any]) -> None:
        """Count ``event``'s seconds in the time split (the one rule; see the module docstring).
        Events of other types are ignored."""
        kind = event.get("event_type", "")
        with self._lock:
            if kind == "tool.call" and "test" not in str(event.get("tool", "")):  # test tools: in tests.run
                self.seconds["tools_s"] += float(event.get("duration_s", 0.0))
            elif kind == "tests.run":
                self.seconds["tests_s"] += float(event.get("duration_s", 0.0))
            elif kind == "patch.start":
                self._patch_started = float(event.get("ts", time.time()))
            elif kind == "patch.done" and self._patch_started is not None:
                self.seconds["repair_s"] += float(event.get("ts", time.time())) - self._patch_started
                self._patch_started = None

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
