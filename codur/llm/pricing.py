"""What a model call costs, USD: one pricing for runs and the RLM.

Prices come, in this order, from

1. an override: a profile's ``usd_per_mtok_in`` / ``usd_per_mtok_out`` (or the RLM's
   ``prices`` map, longest matching model-name prefix);
2. free models: the embedded model (no endpoint) and the scripted test model;
3. genai-prices (pydantic's maintained table of LLM API prices, shipped as a data snapshot
   in the package; no network), matched on the model name and, when known, the endpoint's
   URL (which names the provider).

A model none of them knows is priced at 0 and :func:`price_per_mtok` answers None, so a
caller can say so.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

#: Model names that cost nothing: the embedded model's alias and the scripted model.
FREE_MODELS = frozenset({"qwen2.5-coder-1.5b-instruct", "scripted", "scripted-chat-model"})


def price_per_mtok(model: str, *, base_url: str | None = None,
                   overrides: Mapping[str, tuple[float, float]] | None = None) -> tuple[float, float] | None:
    """(USD per million prompt tokens, USD per million completion tokens) of ``model``, or None.

    Args:
        model: the model name sent to the endpoint, e.g. ``gpt-4o-mini``.
        base_url: the endpoint, e.g. ``https://api.openai.com/v1`` (helps pick the provider).
        overrides: {model-name prefix: (USD/Mtok in, USD/Mtok out)}, searched first (longest prefix).
    """
    name = model.lower()
    matches = [key for key in (overrides or {}) if name.startswith(key.lower())]
    if matches:
        return tuple(overrides[max(matches, key=len)])  # type: ignore[index,return-value]
    if name in FREE_MODELS:
        return 0.0, 0.0
    return _catalogue_price(model, base_url)


@functools.lru_cache(maxsize=64)
def _catalogue_price(model: str, base_url: str | None) -> tuple[float, float] | None:
    from genai_prices import Usage, calc_price

    million = 1_000_000
    try:
        price = calc_price(Usage(input_tokens=million, output_tokens=million), model, provider_api_url=base_url)
    except LookupError:
        if base_url is None:
            return None
        try:  # an endpoint the table does not know (a proxy, a gateway): the model name alone
            price = calc_price(Usage(input_tokens=million, output_tokens=million), model)
        except LookupError:
            return None
    return float(price.input_price), float(price.output_price)


def cost_usd(input_tokens: int, output_tokens: int, usd_per_mtok: tuple[float, float]) -> float:
    """The cost of one call, USD, at ``usd_per_mtok`` = (USD/Mtok in, USD/Mtok out)."""
    return (input_tokens * usd_per_mtok[0] + output_tokens * usd_per_mtok[1]) / 1_000_000


def profile_price(profile: Any) -> tuple[float, float]:
    """(USD/Mtok in, USD/Mtok out) of a :class:`codur.config.tables.ModelProfile`: its own
    ``usd_per_mtok_in`` / ``usd_per_mtok_out`` when it sets any, else :func:`price_per_mtok` of its
    model and endpoint, else 0 (the embedded model, ``base_url`` None, is free)."""
    if profile.usd_per_mtok_in or profile.usd_per_mtok_out:
        return profile.usd_per_mtok_in, profile.usd_per_mtok_out
    return price_per_mtok(profile.model, base_url=profile.base_url) or (0.0, 0.0)
