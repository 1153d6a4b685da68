"""The endpoint's model: a local server (llama.cpp's llama-server, vLLM, Ollama, LM Studio)
usually serves one model; its GET /v1/models lists it. :func:`served_model` asks once per
endpoint and process, through the openai client, and answers that model's id, or says which
to pick."""

from __future__ import annotations

import functools

#: Seconds to wait for the endpoint's model list.
LIST_TIMEOUT_S = 10.0


class ModelChoiceError(ValueError):
    """The endpoint's model cannot be chosen: unreachable, no model, or several. The message is one
    line that says what to pass (``--model`` / ``CODUR_MODEL``)."""


@functools.lru_cache(maxsize=16)
def served_model(base_url: str, api_key: str | None = None) -> str:
    """The id of the one model ``base_url`` lists at ``/models``.

    Args:
        base_url: an OpenAI-compatible endpoint, e.g. ``http://127.0.0.1:8080/v1``.
        api_key: sent as the bearer token, if any.

    Raises:
        ModelChoiceError: the list could not be read (within :data:`LIST_TIMEOUT_S` seconds), is
            empty, or names several models (they are listed in the message).
    """
    import openai

    client = openai.OpenAI(base_url=base_url, api_key=api_key or "none", timeout=LIST_TIMEOUT_S, max_retries=0)
    try:
        ids = sorted(model.id for model in client.models.list())
    except openai.OpenAIError as exc:
        why = f"{type(exc).__name__}: {str(exc)[:120]}"
        raise ModelChoiceError(f"no model named and {base_url}/models could not be read ({why}): "
                               "give one with --model or CODUR_MODEL") from None
    if not ids:
        raise ModelChoiceError(f"no model named and {base_url}/models lists none: give one with --model or CODUR_MODEL")
    if len(ids) > 1:
        shown = ", ".join(ids[:10]) + (f", ... ({len(ids)} in all)" if len(ids) > 10 else "")
        raise ModelChoiceError(f"no model named and {base_url} serves several: {shown}; pick one with --model "
                               "or CODUR_MODEL")
    return ids[0]
