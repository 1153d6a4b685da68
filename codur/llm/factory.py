"""One model factory: a LangChain chat model for a profile, and providers per role.

An OpenAI-compatible endpoint when one is configured (``CODUR_BASE_URL`` or
``OPENAI_BASE_URL``, ``CODUR_MODEL``, key from the environment); otherwise the
embedded local model (:mod:`codur.llm.local`), started on first use.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel

from codur.config import CodurConfig
from codur.config.tables import LocalModelSettings, ModelProfile
from codur.core.usage import UsageLedger
from codur.llm.pricing import profile_price
from codur.llm.usage import ledger_callback

ROLES = ("planner", "actor", "critic")
NATIVE_TOOLS = "codur_native_tools"  # model metadata key: send tool schemas with bind_tools?


def wants_native_tools(model: BaseChatModel) -> bool:
    """Whether to bind tool schemas to ``model`` (default yes; the embedded model says no)."""
    return bool((getattr(model, "metadata", None) or {}).get(NATIVE_TOOLS, True))


@dataclass(frozen=True)
class CallBounds:
    """What bounds every model call of one run: a :class:`ConfigModelProvider` gives its models one.

    Attributes:
        deadline: ``time.monotonic()`` value of the run's end: each call's HTTP timeout is cut
            to the time left, and no call starts after it (:mod:`codur.llm.deadline`); None: none.
        retry_after_cap_s: a 429's Retry-After up to this many seconds is waited for.
        cancel: the run's cancel event: a call in flight ends when it is set
            (:class:`codur.llm.deadline.ModelCallCancelled`); None: none.
        breaker: the run's :class:`codur.llm.breaker.CircuitBreaker`, shared by its models; None: none.
    """

    deadline: float | None = None
    retry_after_cap_s: float = 30.0
    cancel: threading.Event | None = None
    breaker: Any = None


def get_chat_model(profile: ModelProfile, local: LocalModelSettings | None = None,
                   ledger: UsageLedger | None = None, *, model_timeout_s: float | None = None,
                   bounds: CallBounds | None = None) -> BaseChatModel:
    """Return a chat model for ``profile``.

    Args:
        profile: the model profile; ``base_url=None`` selects the embedded model.
        local: settings for the embedded model server.
        ledger: records every call's tokens, cost (USD, at the profile's prices) and seconds.
        model_timeout_s: the request timeout, seconds, when the profile sets no ``timeout_s``
            (``CodurConfig.model_timeout_s``): the wall-clock limit of each call, its streamed
            reply included (:func:`codur.llm.deadline.hard_limit`); None: only the deadline bounds it.
        bounds: the run's deadline, cancel event, circuit breaker and Retry-After cap
            (default: none of them, Retry-After waited up to 30 s).

    Raises:
        codur.llm.local.LocalModelUnavailable: the embedded model cannot start.
    """
    from codur.llm.deadline import DeadlineChatOpenAI

    timeout = profile.timeout_s if profile.timeout_s is not None else model_timeout_s
    bounds = bounds or CallBounds()
    limits = {"timeout": timeout, "max_retries": 0, "deadline": bounds.deadline, "cancel": bounds.cancel,
              "breaker": bounds.breaker, "retry_after_cap_s": bounds.retry_after_cap_s,
              "temperature": profile.temperature, "max_tokens": profile.max_tokens}
    if profile.base_url is None:
        from codur.llm.local import MODEL_ALIAS, shared_server

        server = shared_server(local)
        threads = getattr(server, "settings", local or LocalModelSettings()).threads  # its calls hold these cores
        return DeadlineChatOpenAI(
            base_url=server.base_url, api_key="local", model=MODEL_ALIAS, **limits, stream_replies=True,
            cpu_threads=threads,
            callbacks=[ledger_callback(ledger)] if ledger else None,
            metadata={NATIVE_TOOLS: bool(profile.native_tools)},
        )
    key = os.environ.get(profile.api_key_env) or os.environ.get("CODUR_API_KEY") or "not-set"
    return DeadlineChatOpenAI(
        base_url=profile.base_url, api_key=key, model=profile.model, **limits,
        callbacks=[ledger_callback(ledger, profile_price(profile))] if ledger else None,
        metadata={NATIVE_TOOLS: profile.native_tools is not False},
    )


class ModelProvider(Protocol):
    """Gives the graph its models: a fallback chain of chat models per role, each model recording
    its calls in the provider's ``ledger`` (:func:`with_ledger` gives one to a provider without)."""

    ledger: UsageLedger

    def models_for(self, role: str) -> list[BaseChatModel]:
        """Chat models for ``role`` (planner, actor, critic), first choice first."""
        ...


def role_configured(provider: Any, role: str) -> bool:
    """Whether ``provider`` names a model of its own for ``role`` (a role map's key, the setting
    ``roles.<role>``), rather than falling back to the actor's; False for a provider that does
    not say (one without ``has_role``)."""
    method = getattr(provider, "has_role", None)
    return bool(method(role)) if method is not None else False


def models_for_profile(provider: ModelProvider, name: str) -> list[BaseChatModel]:
    """The chat model of the named profile (``CodurConfig.profiles[name]``), as a chain of one.

    A provider without ``models_for_profile`` (a custom one) gives its actor chain.

    Raises:
        KeyError: the provider knows no profile ``name`` (the config validation catches an
            agent naming one first).
    """
    method = getattr(provider, "models_for_profile", None)
    return method(name) if method is not None else provider.models_for("actor")


class ConfigModelProvider:
    """Builds models from :class:`CodurConfig` lazily and caches them per profile.

    Args:
        config: the settings.
        deadline: ``time.monotonic()`` value of the run's end; default: now + ``config.timeout_s``
            (the runner builds one provider per run, as the run starts). Every model call's HTTP
            timeout is cut to the time left.
        cancel: the run's cancel event: a model call in flight ends when it is set.
        ledger: records every call of these models (default: a new one).

    Its models share one :class:`codur.llm.breaker.CircuitBreaker` (``endpoint_failure_limit``):
    an endpoint that timed out or refused that many calls in a row is not called again.
    """

    def __init__(self, config: CodurConfig, *, deadline: float | None = None,
                 cancel: threading.Event | None = None, ledger: UsageLedger | None = None) -> None:
        self.config, self.cancel = config, cancel
        self.deadline = deadline if deadline is not None else time.monotonic() + config.timeout_s
        self.ledger = ledger or UsageLedger()
        self._cache: dict[str, BaseChatModel] = {}
        from codur.llm.breaker import CircuitBreaker

        self.breaker = CircuitBreaker(config.endpoint_failure_limit)

    def _model(self, profile: ModelProfile) -> BaseChatModel:
        key = profile.model_dump_json()
        if key not in self._cache:
            bounds = CallBounds(deadline=self.deadline, retry_after_cap_s=self.config.retry_after_cap_s,
                                cancel=self.cancel, breaker=self.breaker)
            self._cache[key] = get_chat_model(profile, self.config.local, self.ledger,
                                              model_timeout_s=self.config.model_timeout_s, bounds=bounds)
        return self._cache[key]

    def models_for(self, role: str) -> list[BaseChatModel]:
        return [self._model(profile) for profile in self.config.profiles_for(role)]

    def has_role(self, role: str) -> bool:
        """Whether the setting ``roles`` names profiles for ``role`` (else it uses the actor's)."""
        return bool(self.config.roles.get(role))

    def models_for_profile(self, name: str) -> list[BaseChatModel]:
        """The model of ``config.profiles[name]``, as a chain of one. Raises KeyError for an unknown name."""
        if name not in self.config.profiles:
            raise KeyError(f"no profile {name!r}; profiles: {', '.join(sorted(self.config.profiles)) or 'none'}")
        return [self._model(self.config.profiles[name])]

    @property
    def uses_local_model(self) -> bool:
        return any(p.base_url is None for r in ROLES for p in self.config.profiles_for(r, resolve=False))


class StaticModelProvider:
    """Fixed models per role (tests hand in ScriptedChatModels). Missing roles use ``actor``.

    Its ledger records every call of these models (a callback added to each model), so the
    run's token budget and ``model.call`` events work as with configured models.

    A key that is no role names a profile: ``models_for_profile(name)`` gives it, and a
    profile not given falls back to the actor's chain.
    """

    def __init__(self, models: Mapping[str, BaseChatModel | Sequence[BaseChatModel]]) -> None:
        self._models = {r: list(m) if isinstance(m, Sequence) else [m] for r, m in models.items()}
        self.ledger = UsageLedger()
        for chain in self._models.values():
            for model in chain:
                record_in(model, self.ledger)

    def models_for(self, role: str) -> list[BaseChatModel]:
        chain = self._models.get(role) or self._models.get("actor")
        if not chain:
            raise KeyError(f"no model for role {role!r} and no 'actor' fallback")
        return chain

    def has_role(self, role: str) -> bool:
        """Whether models were given for ``role`` (else it uses the actor's)."""
        return bool(self._models.get(role))

    def models_for_profile(self, name: str) -> list[BaseChatModel]:
        """The models given under ``name``, else the actor's chain."""
        return self._models.get(name) or self.models_for("actor")


def record_in(model: BaseChatModel, ledger: UsageLedger) -> BaseChatModel:
    """``model`` with its calls recorded in ``ledger`` (the ledger callback of an earlier provider
    is replaced, not stacked: a model reused by another run records in that run's ledger)."""
    callbacks = list(model.callbacks or [])  # type: ignore[arg-type]
    mine = [c for c in callbacks if getattr(c, "codur_ledger", False)]
    if not (len(mine) == 1 and getattr(mine[0], "ledger", None) is ledger):
        model.callbacks = [*(c for c in callbacks if not getattr(c, "codur_ledger", False)),
                           ledger_callback(ledger)]
    return model


class _Recorded:
    """A provider without a ledger, its models recording in one (see :func:`with_ledger`)."""

    def __init__(self, provider: Any) -> None:
        self.provider, self.ledger = provider, UsageLedger()

    def models_for(self, role: str) -> list[BaseChatModel]:
        return [record_in(m, self.ledger) for m in self.provider.models_for(role)]

    def models_for_profile(self, name: str) -> list[BaseChatModel]:
        return [record_in(m, self.ledger) for m in models_for_profile(self.provider, name)]

    def has_role(self, role: str) -> bool:
        return role_configured(self.provider, role)


def with_ledger(provider: Any) -> ModelProvider:
    """``provider`` when it has a ``ledger``; else it wrapped so that every model it gives records
    its calls in a new one (a custom provider with only ``models_for``)."""
    return provider if isinstance(getattr(provider, "ledger", None), UsageLedger) else _Recorded(provider)
