"""Usage and cost accounting: tokens per model call, priced per model profile.

A :class:`UsageMeter` is attached to every model the factory builds (as a LangChain
callback), so every call is counted wherever it happens: agent, planner, critic or
a tool that calls a model. Prices are USD per million tokens, from the profile
(``ModelProfile.usd_per_mtok_in/out``); the embedded model costs 0.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult


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


class UsageMeter:
    """Run-wide usage totals; :meth:`callback` gives a priced handler per model."""

    def __init__(self) -> None:
        self.usage = Usage()
        self._lock = threading.Lock()

    def add(self, input_tokens: int, output_tokens: int, usd_in: float, usd_out: float) -> None:
        with self._lock:
            u = self.usage
            u.calls += 1
            u.input_tokens += input_tokens
            u.output_tokens += output_tokens
            u.cost_usd += (input_tokens * usd_in + output_tokens * usd_out) / 1_000_000

    def callback(self, usd_per_mtok_in: float = 0.0, usd_per_mtok_out: float = 0.0) -> BaseCallbackHandler:
        """A LangChain callback that records each call's usage at these prices (USD per 1M tokens)."""
        return _MeterCallback(self, usd_per_mtok_in, usd_per_mtok_out)


class _MeterCallback(BaseCallbackHandler):
    def __init__(self, meter: UsageMeter, usd_in: float, usd_out: float) -> None:
        self.meter, self.usd_in, self.usd_out = meter, usd_in, usd_out

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        for generations in response.generations:
            for gen in generations:
                meta = getattr(getattr(gen, "message", None), "usage_metadata", None) or {}
                if meta:
                    self.meter.add(meta.get("input_tokens", 0), meta.get("output_tokens", 0), self.usd_in, self.usd_out)
