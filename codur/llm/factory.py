"""One model factory: a LangChain chat model for a profile, and providers per role.

An OpenAI-compatible endpoint when one is configured (``CODUR_BASE_URL`` or
``OPENAI_BASE_URL``, ``CODUR_MODEL``, key from the environment); otherwise the
embedded local model (:mod:`codur.llm.local`), started on first use.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Protocol

from langchain_core.language_models import BaseChatModel

from codur.config import CodurConfig, LocalModelSettings, ModelProfile
from codur.llm.usage import UsageMeter

ROLES = ("planner", "actor", "critic")
NATIVE_TOOLS = "codur_native_tools"  # model metadata key: send tool schemas with bind_tools?


def wants_native_tools(model: BaseChatModel) -> bool:
    """Whether to bind tool schemas to ``model`` (default yes; the embedded model says no)."""
    return bool((getattr(model, "metadata", None) or {}).get(NATIVE_TOOLS, True))


def get_chat_model(profile: ModelProfile, local: LocalModelSettings | None = None,
                   meter: UsageMeter | None = None) -> BaseChatModel:
    """Return a chat model for ``profile``.

    Args:
        profile: the model profile; ``base_url=None`` selects the embedded model.
        local: settings for the embedded model server.
        meter: counts every call's tokens and cost (USD, at the profile's prices).

    Raises:
        codur.llm.local.LocalModelUnavailable: the embedded model cannot start.
    """
    from langchain_openai import ChatOpenAI

    if profile.base_url is None:
        from codur.llm.local import MODEL_ALIAS, shared_server

        server = shared_server(local)
        return ChatOpenAI(
            base_url=server.base_url, api_key="local", model=MODEL_ALIAS,
            temperature=profile.temperature, max_tokens=profile.max_tokens,
            timeout=profile.timeout_s, max_retries=0,
            callbacks=[meter.callback()] if meter else None,
            metadata={NATIVE_TOOLS: bool(profile.native_tools)},
        )
    key = os.environ.get(profile.api_key_env) or os.environ.get("CODUR_API_KEY") or "not-set"
    return ChatOpenAI(
        base_url=profile.base_url, api_key=key, model=profile.model,
        temperature=profile.temperature, max_tokens=profile.max_tokens,
        timeout=profile.timeout_s, max_retries=0,
        callbacks=[meter.callback(profile.usd_per_mtok_in, profile.usd_per_mtok_out)] if meter else None,
        metadata={NATIVE_TOOLS: profile.native_tools is not False},
    )


class ModelProvider(Protocol):
    """Gives the graph its models: a fallback chain of chat models per role."""

    def models_for(self, role: str) -> list[BaseChatModel]:
        """Chat models for ``role`` (planner, actor, critic), first choice first."""
        ...


class ConfigModelProvider:
    """Builds models from :class:`CodurConfig` lazily and caches them per profile."""

    def __init__(self, config: CodurConfig) -> None:
        self.config = config
        self.meter = UsageMeter()
        self._cache: dict[str, BaseChatModel] = {}

    def models_for(self, role: str) -> list[BaseChatModel]:
        models = []
        for profile in self.config.profiles_for(role):
            key = profile.model_dump_json()
            if key not in self._cache:
                self._cache[key] = get_chat_model(profile, self.config.local, self.meter)
            models.append(self._cache[key])
        return models

    @property
    def uses_local_model(self) -> bool:
        return any(p.base_url is None for r in ROLES for p in self.config.profiles_for(r))


class StaticModelProvider:
    """Fixed models per role (tests hand in ScriptedChatModels). Missing roles use ``actor``."""

    def __init__(self, models: Mapping[str, BaseChatModel | Sequence[BaseChatModel]]) -> None:
        self._models = {r: list(m) if isinstance(m, Sequence) else [m] for r, m in models.items()}

    def models_for(self, role: str) -> list[BaseChatModel]:
        chain = self._models.get(role) or self._models.get("actor")
        if not chain:
            raise KeyError(f"no model for role {role!r} and no 'actor' fallback")
        return chain
