"""Before a run starts its test suite: is the model endpoint there, and does it take the key?

One cheap request per endpoint (``GET <base_url>/models``, the OpenAI API's model list, which
OpenAI, vLLM, Ollama and llama.cpp's server all serve), seconds at most, no retry: an endpoint
that is down, refuses the key or is not at that URL is found before the first test runs, not
after the suite and every role's retries. A refused connection, a timeout, and an authentication
or permission refusal (HTTP 401, 403) fail the check; so does a 404 when the chat route is not
found either (one more request, an empty chat that a server refuses at once: the base URL is
wrong, or with a body naming the model, the model is unknown there). Any other answer (a 404 from
a server without the list whose chat route is there, a 500) shows the endpoint is there, and the
run meets whatever follows itself. The message is the same whether or not a model was named
(:func:`codur.config.endpoint.failure`).

A failed check does not stop a fix: the model's absence degrades the run
(:mod:`codur.commands.model_absent`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

#: Seconds the check waits for the endpoint's answer.
PREFLIGHT_TIMEOUT_S = 5.0


class EndpointUnusable(RuntimeError):
    """The endpoint cannot serve the run; the message is one line naming the endpoint and the cause.

    Attributes:
        cause: ``authentication`` (401/403: the key), ``network`` (refused, unreachable, timed out)
            or ``not_found`` (404: a wrong base URL, or a model the endpoint does not know).
    """

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message)
        self.cause = cause


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible endpoint a run's roles call: its URL, the variable holding its key, and
    the model named for it ("" when none is: the one it serves is asked for later)."""

    base_url: str
    api_key_env: str
    model: str = ""


def endpoints(config: object) -> list[Endpoint]:
    """The distinct endpoints the planner, actor and critic roles of ``config`` (a CodurConfig) call
    first; the embedded model (no base URL) is none. Nothing is asked of them here."""
    seen: dict[tuple[str, str], Endpoint] = {}
    for role in ("planner", "actor", "critic"):
        for profile in config.profiles_for(role, resolve=False)[:1]:  # type: ignore[attr-defined]
            if profile.base_url:
                seen.setdefault((profile.base_url, profile.api_key_env),
                                Endpoint(profile.base_url, profile.api_key_env, profile.model))
    return list(seen.values())


def check_endpoint(endpoint: Endpoint, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> None:
    """Ask ``endpoint`` for its model list once (no retry, at most ``timeout_s`` seconds); after a
    404, its chat route once (:func:`_chat_route_missing`).

    Raises:
        EndpointUnusable: it refused the connection, did not answer in time (cause ``network``),
            refused the key with 401 or 403 (cause ``authentication``, naming the variable), or
            answered 404 at both routes (cause ``not_found``: a wrong base URL, or the model unknown).
    """
    import openai

    from codur.config.endpoint import failure

    key = os.environ.get(endpoint.api_key_env) or os.environ.get("CODUR_API_KEY")
    client = openai.OpenAI(base_url=endpoint.base_url, api_key=key or "not-set", timeout=timeout_s, max_retries=0)
    try:
        client.models.list()
    except openai.NotFoundError:
        if (missing := _chat_route_missing(client, endpoint)) is not None:
            raise EndpointUnusable(missing, "not_found") from None
    except openai.OpenAIError as exc:
        named = failure(exc, endpoint.base_url, endpoint.api_key_env, bool(key), timeout_s)
        if named is not None:
            raise EndpointUnusable(*named) from None


def _chat_route_missing(client: object, endpoint: Endpoint) -> str | None:
    """After ``/models`` answered 404: POST an empty chat (no messages, one token at most: a server
    refuses it at once) to ``/chat/completions``. None when that route is there (any answer but
    404: the server only lacks the list); else the line that says what is not found: the model,
    when the 404's body names it (OpenAI's ``model_not_found``), else the base URL."""
    import openai

    from codur.config.endpoint import BASE_URL_HINT

    try:
        client.chat.completions.create(model=endpoint.model or "default", messages=[],  # type: ignore[attr-defined]
                                       max_tokens=1)
    except openai.NotFoundError as exc:
        said = " ".join(str(getattr(exc, "message", exc)).split())[:160]
        if endpoint.model and ("model" in said.lower() and endpoint.model in said or "model_not_found" in said):
            return f"{endpoint.base_url}: model {endpoint.model!r} not found there (HTTP 404: {said})"
        return (f"{endpoint.base_url}: not found (HTTP 404 at /models and /chat/completions): wrong base URL? "
                f"{BASE_URL_HINT}")
    except openai.OpenAIError:
        return None
    return None


def preflight(config: object, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> None:
    """Check every endpoint of ``config`` (:func:`endpoints`, :func:`check_endpoint`).

    Raises:
        EndpointUnusable: the first endpoint that cannot serve the run.
    """
    for endpoint in endpoints(config):
        check_endpoint(endpoint, timeout_s)
