"""The configured actor model of an RLM run (``codur rlm`` and the ``ask_codebase`` tool): the
chat model, its price, and its context window for the direct path."""

from __future__ import annotations

from typing import Any


def build_model(**flags: Any) -> tuple[Any, dict[str, tuple[float, float]]]:
    """The configured actor model and its price ({model: (USD/Mtok in, out)}) from CodurConfig.

    Args:
        flags: settings from the command line (``model``, ``base_url``, ``api_key_env``; None: not given).

    Raises:
        codur.config.ConfigError: a setting is wrong, or the endpoint's model cannot be chosen.
        codur.llm.local.LocalModelUnavailable: the embedded model cannot start.
    """
    from codur.config import load_config
    from codur.llm import get_chat_model

    config = load_config(**flags)  # flags over CODUR_* variables over the user's config file
    profile = config.profiles_for("actor")[0]
    # the profile's own prices when set; else the RLM engine prices the model as a run does
    prices = {profile.model: (profile.usd_per_mtok_in, profile.usd_per_mtok_out)} \
        if profile.usd_per_mtok_in or profile.usd_per_mtok_out else {}
    return get_chat_model(profile, config.local, model_timeout_s=config.model_timeout_s), prices


#: the context window assumed for an endpoint's model, tokens (an endpoint does not say its own)
ENDPOINT_WINDOW_TOKENS = 8192


def window_tokens(**flags: Any) -> tuple[int, int]:
    """The configured actor model's context window and completion cap, tokens: the embedded model's
    ``n_ctx`` per server slot (``n_ctx / parallel``), an endpoint's :data:`ENDPOINT_WINDOW_TOKENS`;
    for :attr:`RLMConfig.context_window_tokens` and ``direct_answer_tokens`` (the direct path).

    Args:
        flags: as :func:`build_model`'s.

    Raises:
        codur.config.ConfigError: a setting is wrong.
    """
    from codur.config import load_config

    config = load_config(**flags)
    profile = config.profiles_for("actor")[0]
    window = ENDPOINT_WINDOW_TOKENS if profile.base_url else config.local.n_ctx // config.local.parallel
    return window, profile.max_tokens
