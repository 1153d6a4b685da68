"""Usage and cost accounting: tokens per model call, priced per model profile.

A :class:`UsageMeter` is attached to every model the factory builds (as a LangChain
callback), so every call is counted wherever it happens: agent, planner, critic or
a tool that calls a model. Prices are USD per million tokens: the profile's own
(``ModelProfile.usd_per_mtok_in/out``) when set, else genai-prices' table
(:mod:`codur.llm.pricing`, one pricing for runs and the RLM); the embedded model costs 0.
"""

from __future__ import annotations

import threading
import time
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

    def add(self, input_tokens: int, output_tokens: int, usd_in: float, usd_out: float, seconds: float = 0.0) -> float:
        """Record one call (tokens, prices in USD per 1M tokens, wall seconds); returns its cost, USD."""
        cost = (input_tokens * usd_in + output_tokens * usd_out) / 1_000_000
        with self._lock:
            u = self.usage
            u.calls += 1
            u.input_tokens += input_tokens
            u.output_tokens += output_tokens
            u.cost_usd += cost
            u.model_s += seconds
        return cost

    @property
    def total_tokens(self) -> int:
        """Prompt + completion tokens of every call so far."""
        return self.usage.total_tokens

    def callback(self, usd_per_mtok_in: float = 0.0, usd_per_mtok_out: float = 0.0) -> BaseCallbackHandler:
        """A LangChain callback that records each call's usage at these prices (USD per 1M tokens)."""
        return _MeterCallback(self, usd_per_mtok_in, usd_per_mtok_out)


#: graph node -> the role whose model it calls (for ``model.*`` events).
NODE_ROLES = {"plan": "planner", "verify": "critic", "review": "critic"}


class _MeterCallback(BaseCallbackHandler):
    """Counts each call and emits ``model.start`` / ``model.call`` events (role, model, tokens in and
    out, seconds, cost in USD) into the running graph's event stream."""

    def __init__(self, meter: UsageMeter, usd_in: float, usd_out: float) -> None:
        self.meter, self.usd_in, self.usd_out = meter, usd_in, usd_out
        self._started: dict[Any, tuple[float, dict[str, Any]]] = {}

    def on_chat_model_start(self, serialized: dict[str, Any], messages: Any, *, run_id: Any = None,
                            metadata: dict[str, Any] | None = None, **kwargs: Any) -> None:
        metadata = metadata or {}
        node = metadata.get("langgraph_node")
        info = {"model": metadata.get("ls_model_name") or (serialized or {}).get("name", ""),
                **({"role": NODE_ROLES.get(node, "actor"), "node": node} if node else {})}
        self._started[run_id] = (time.monotonic(), info)
        _emit({"event_type": "model.start", **info})

    def on_llm_end(self, response: LLMResult, *, run_id: Any = None, **kwargs: Any) -> None:
        started, info = self._started.pop(run_id, (None, {}))
        seconds = time.monotonic() - started if started is not None else 0.0
        for generations in response.generations:
            for gen in generations:
                meta = getattr(getattr(gen, "message", None), "usage_metadata", None) or {}
                if meta:
                    t_in, t_out = meta.get("input_tokens", 0), meta.get("output_tokens", 0)
                    cost = self.meter.add(t_in, t_out, self.usd_in, self.usd_out, seconds)
                    _emit({"event_type": "model.call", **info, "input_tokens": t_in, "output_tokens": t_out,
                           "seconds": round(seconds, 3), "cost_usd": round(cost, 6)})
                    seconds = 0.0  # one call's time, counted once

    def on_llm_error(self, error: BaseException, *, run_id: Any = None, **kwargs: Any) -> None:
        started, info = self._started.pop(run_id, (None, {}))
        if started is not None:
            _emit({"event_type": "model.call", **info, "input_tokens": 0, "output_tokens": 0,
                   "seconds": round(time.monotonic() - started, 3), "cost_usd": 0.0,
                   "error": f"{type(error).__name__}: {error}"[:200]})


def _emit(event: dict[str, Any]) -> None:
    from codur.core.events import emit

    emit(event)
