"""Model calls (codur/llm/): told by the usage ledger's callback and the model-call policy."""

from __future__ import annotations

from dataclasses import dataclass

from codur.core.events.base import OMIT, Event


@dataclass(frozen=True, kw_only=True)
class ModelStart(Event, kind="model.start"):
    """A model call started: the model, and the role and node when a graph node made it."""

    model: str
    role: str = OMIT
    node: str = OMIT


@dataclass(frozen=True, kw_only=True)
class ModelCall(Event, kind="model.call"):
    """A model call ended: tokens in and out, seconds, cost (USD); ``stream_closed`` when its reader closed the
    stream early, ``error`` when it failed."""

    model: str
    role: str = OMIT
    node: str = OMIT
    input_tokens: int
    output_tokens: int
    seconds: float
    cost_usd: float
    stream_closed: bool = OMIT
    error: str = OMIT


@dataclass(frozen=True, kw_only=True)
class ModelFallback(Event, kind="model.fallback"):
    """The model-call policy went on from one profile of a role's chain to the next (profile indexes)."""

    role: str
    from_profile: int
    to_profile: int
