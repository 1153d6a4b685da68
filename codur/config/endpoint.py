"""The endpoint's model, and what an endpoint's failure means.

A local server (llama.cpp's llama-server, vLLM, Ollama, LM Studio) usually serves one model; its
GET /v1/models lists it. :func:`served_model` asks once per endpoint and process, through the
openai client, and answers that model's id, or says which to pick. :func:`failure` names the
cause of a request that failed (a dead server, a refused key, a wrong base URL) in one line, the
same whether or not a model was named (:mod:`codur.llm.preflight` uses it too).
"""

from __future__ import annotations

import functools

#: Seconds to wait for the endpoint's model list.
LIST_TIMEOUT_S = 10.0
#: What a base URL usually looks like: the API root, under which /models and /chat/completions are.
BASE_URL_HINT = "an OpenAI-compatible server answers under its API root, e.g. http://127.0.0.1:8080/v1"


class ModelChoiceError(ValueError):
    """The endpoint's model cannot be chosen: unreachable, no model, or several. The message is one
    line that names the cause and what to do.

    Attributes:
        cause: ``authentication``, ``network`` or ``not_found`` (:func:`failure`) when the endpoint
            could not be used; ``choice`` when it answered but the model cannot be chosen.
    """

    def __init__(self, message: str, cause: str = "choice") -> None:
        super().__init__(message)
        self.cause = cause


def failure(exc: Exception, base_url: str, key_env: str, key_set: bool,
            timeout_s: float | None = None) -> tuple[str, str] | None:
    """(one line naming ``base_url`` and the cause, the cause) for an openai client error of a
    request to ``base_url``; None for an answer that shows the endpoint is there (any other status).

    Causes: ``authentication`` (HTTP 401 or 403: the key, naming ``key_env`` or saying it is not
    set), ``network`` (the connection refused, the host unreachable, no answer within ``timeout_s``
    seconds: is the server up?) and ``not_found`` (HTTP 404: nothing at that path, a base URL without
    its API root).
    """
    import openai

    if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
        said = " ".join(str(getattr(exc, "message", exc)).split())[:160]
        held = f"the key in {key_env}" if key_set else f"no key ({key_env} is not set)"
        return (f"{base_url}: authentication refused (HTTP {exc.status_code}) with {held}: {said}",
                "authentication")
    if isinstance(exc, openai.APITimeoutError):
        within = f"within {timeout_s:g} s" if timeout_s else "in time"
        return f"{base_url}: no answer {within} (network: is the server up and the address right?)", "network"
    if isinstance(exc, openai.APIConnectionError):
        why = " ".join(str(exc.__cause__ or exc).split())[:160]
        return f"{base_url}: cannot connect (network: {why}; is the server up and the address right?)", "network"
    if isinstance(exc, openai.NotFoundError):
        return f"{base_url}: not found (HTTP 404): wrong base URL? {BASE_URL_HINT}", "not_found"
    return None


@functools.lru_cache(maxsize=16)
def served_model(base_url: str, api_key: str | None = None, key_env: str = "OPENAI_API_KEY") -> str:
    """The id of the one model ``base_url`` lists at ``/models``.

    Args:
        base_url: an OpenAI-compatible endpoint, e.g. ``http://127.0.0.1:8080/v1``.
        api_key: sent as the bearer token, if any.
        key_env: the variable it comes from (named when the endpoint refuses it).

    Raises:
        ModelChoiceError: the list could not be read (within :data:`LIST_TIMEOUT_S` seconds; the
            message names the cause: :func:`failure`), is empty, or names several models (they are
            listed in the message).
    """
    import openai

    client = openai.OpenAI(base_url=base_url, api_key=api_key or "none", timeout=LIST_TIMEOUT_S, max_retries=0)
    try:
        ids = sorted(model.id for model in client.models.list())
    except openai.OpenAIError as exc:
        named = failure(exc, base_url, key_env, bool(api_key), LIST_TIMEOUT_S)
        if isinstance(exc, openai.NotFoundError):
            raise ModelChoiceError(f"no model named and {base_url}/models is not found (HTTP 404): the server lists "
                                   f"no models (name one with --model or CODUR_MODEL), or the base URL is wrong "
                                   f"({BASE_URL_HINT})", "not_found") from None
        if named is not None:
            raise ModelChoiceError(f"model endpoint {named[0]} (asked for its model list: no model was named)",
                                   named[1]) from None
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
