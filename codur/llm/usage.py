"""Model calls into the run's ledger: each call's usage, priced, and the ``model.*`` events.

The model provider attaches :func:`ledger_callback` to every model it builds (as a LangChain
callback), so every call is recorded in the run's :class:`codur.core.usage.UsageLedger`
wherever it happens: agent, planner, critic, patch sampler or a tool that calls a model (the
RLM), and a raw text completion (a cloze fill) is made one LangChain run of the model's callbacks
(:func:`recorded_completion`). :func:`call_usage` is the one rule for one call's :class:`Usage`: tokens from the reply's
``usage_metadata``, cost at the prices of :mod:`codur.llm.pricing` (the one price table).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler, CallbackManager, Callbacks
from langchain_core.outputs import Generation, LLMResult

from codur.core.events.base import Event
from codur.core.events.model import ModelCall, ModelStart
from codur.core.usage import Usage, UsageLedger
from codur.llm.pricing import cost_usd

#: graph node -> the role whose model it calls (for ``model.*`` events).
NODE_ROLES = {"plan": "planner", "verify": "critic", "review": "critic"}


def call_usage(metadata: Mapping | None, usd_per_mtok: tuple[float, float] | None, seconds: float = 0.0) -> Usage:
    """One model call's :class:`Usage` from LangChain ``usage_metadata`` (``input_tokens``,
    ``output_tokens``), its prices (USD per million tokens in, out; None: unknown, costs 0) and
    its duration, seconds."""
    meta = metadata or {}
    tokens_in, tokens_out = int(meta.get("input_tokens") or 0), int(meta.get("output_tokens") or 0)
    return Usage(tokens_in, tokens_out, cost_usd(tokens_in, tokens_out, usd_per_mtok or (0.0, 0.0)), 1, seconds)


def ledger_callback(ledger: UsageLedger, usd_per_mtok: tuple[float, float] = (0.0, 0.0)) -> BaseCallbackHandler:
    """A LangChain callback that records each call in ``ledger`` at these prices (USD per 1M
    tokens in, out) and emits its ``model.start`` / ``model.call`` events."""
    return _LedgerCallback(ledger, usd_per_mtok)


def recorded_completion(callbacks: Callbacks, model: str, prompt: str,
                        call: Callable[[], tuple[str, int, int]]) -> tuple[str, int, int]:
    """``call()`` (one raw text completion of ``prompt`` by ``model``; returns the text, the
    prompt's tokens and the completion's) made a LangChain LLM run of ``callbacks`` (a model's
    ``callbacks``): the ledger's callback records it and emits its ``model.start`` /
    ``model.call`` events, as for a chat call. Returns what ``call`` returned; raises what it
    raises (the run then ends with an error)."""
    manager = CallbackManager.configure(inheritable_callbacks=callbacks, inheritable_metadata={"ls_model_name": model})
    run = manager.on_llm_start({"name": model}, [prompt])[0]
    try:
        text, tokens_in, tokens_out = call()
    except BaseException as exc:
        run.on_llm_error(exc)
        raise
    meta = {"input_tokens": tokens_in, "output_tokens": tokens_out, "total_tokens": tokens_in + tokens_out}
    run.on_llm_end(LLMResult(generations=[[Generation(text=text, generation_info={"usage_metadata": meta})]]))
    return text, tokens_in, tokens_out


class _LedgerCallback(BaseCallbackHandler):
    """Records each call and emits ``model.start`` / ``model.call`` events (role, model, tokens in and
    out, seconds, cost in USD) into the running graph's event stream."""

    codur_ledger = True  # marks the ledger's callback: replaced, not stacked, when a model is reused

    def __init__(self, ledger: UsageLedger, usd_per_mtok: tuple[float, float]) -> None:
        self.ledger, self.usd_per_mtok = ledger, usd_per_mtok
        self._started: dict[Any, tuple[float, dict[str, Any]]] = {}

    def on_chat_model_start(self, serialized: dict[str, Any], messages: Any, *, run_id: Any = None,
                            metadata: dict[str, Any] | None = None, **kwargs: Any) -> None:
        metadata = metadata or {}
        node = metadata.get("langgraph_node")
        info = {"model": metadata.get("ls_model_name") or (serialized or {}).get("name", ""),
                **({"role": NODE_ROLES.get(node, "actor"), "node": node} if node else {})}
        prompt_chars = sum(len(str(m.content)) for batch in messages or [] for m in batch)
        self._started[run_id] = (time.monotonic(), info, prompt_chars)
        _emit(ModelStart(**info))

    def on_llm_start(self, serialized: dict[str, Any], prompts: list[str], *, run_id: Any = None,
                     metadata: dict[str, Any] | None = None, **kwargs: Any) -> None:
        """A raw text completion (:func:`recorded_completion`): recorded as a chat call is."""
        self.on_chat_model_start(serialized, [], run_id=run_id, metadata=metadata)
        started, info, _ = self._started[run_id]
        self._started[run_id] = (started, info, sum(len(p) for p in prompts))

    def on_llm_end(self, response: LLMResult, *, run_id: Any = None, **kwargs: Any) -> None:
        started, info, _ = self._started.pop(run_id, (None, {}, 0))
        seconds = time.monotonic() - started if started is not None else 0.0
        for generations in response.generations:
            for gen in generations:
                meta = (getattr(getattr(gen, "message", None), "usage_metadata", None)
                        or (gen.generation_info or {}).get("usage_metadata") or {})
                if meta:
                    usage = call_usage(meta, self.usd_per_mtok, seconds)
                    self.ledger.record(usage)
                    _emit(ModelCall(**info, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                                     seconds=round(seconds, 3), cost_usd=round(usage.cost_usd, 6)))
                    seconds = 0.0  # one call's time, counted once

    def on_llm_error(self, error: BaseException, *, run_id: Any = None, response: LLMResult | None = None,
                     **kwargs: Any) -> None:
        started, info, prompt_chars = self._started.pop(run_id, (None, {}, 0))
        if started is not None and isinstance(error, GeneratorExit):
            # a stream its reader closed early (a patch sample whose block is complete): the call
            # was made; its tokens are the partial reply's usage, else estimated at 4 characters a token
            seconds = time.monotonic() - started
            text, meta = _partial(response)
            usage = call_usage(meta or {"input_tokens": prompt_chars // 4 + 1, "output_tokens": len(text) // 4 + 1},
                               self.usd_per_mtok, seconds)
            self.ledger.record(usage)
            _emit(ModelCall(**info, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                             seconds=round(seconds, 3), cost_usd=round(usage.cost_usd, 6), stream_closed=True))
        elif started is not None:
            _emit(ModelCall(**info, input_tokens=0, output_tokens=0, seconds=round(time.monotonic() - started, 3),
                             cost_usd=0.0, error=f"{type(error).__name__}: {error}"[:200]))


def _partial(response: LLMResult | None) -> tuple[str, Mapping | None]:
    """(the text, the usage_metadata) of the partial reply of a stream cut short ('', None: none)."""
    for generations in (response.generations if response is not None else []):
        for gen in generations:
            message = getattr(gen, "message", None)
            if message is not None:
                return str(message.content), getattr(message, "usage_metadata", None) or None
    return "", None


def _emit(event: Event) -> None:
    from codur.core.events import emit

    emit(event)
