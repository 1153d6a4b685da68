"""Before a run starts its test suite: is the model endpoint there, and does it take the key?

One cheap request per endpoint (``GET <base_url>/models``, the OpenAI API's model list, which
OpenAI, vLLM, Ollama and llama.cpp's server all serve), seconds at most, no retry: an endpoint
that is down or refuses the key is found before the first test runs, not after the suite and
every role's retries. Only a refused connection, a timeout, and an authentication or permission
refusal (HTTP 401, 403) fail the check; any other answer (a 404 from a server without the
list, a 500) shows the endpoint is there, and the run meets whatever follows itself.

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
        cause: ``authentication`` (401/403: the key) or ``network`` (refused, unreachable, timed out).
    """

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message)
        self.cause = cause


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible endpoint a run's roles call: its URL and the variable holding its key."""

    base_url: str
    api_key_env: str


def endpoints(config: object) -> list[Endpoint]:
    """The distinct endpoints the planner, actor and critic roles of ``config`` (a CodurConfig) call
    first; the embedded model (no base URL) is none."""
    seen: dict[tuple[str, str], Endpoint] = {}
    for role in ("planner", "actor", "critic"):
        for profile in config.profiles_for(role)[:1]:  # type: ignore[attr-defined]
            if profile.base_url:
                seen.setdefault((profile.base_url, profile.api_key_env),
                                Endpoint(profile.base_url, profile.api_key_env))
    return list(seen.values())


def check_endpoint(endpoint: Endpoint, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> None:
    """Ask ``endpoint`` for its model list once (no retry, at most ``timeout_s`` seconds).

    Raises:
        EndpointUnusable: it refused the connection, did not answer in time (cause ``network``),
            or refused the key with 401 or 403 (cause ``authentication``, naming the variable).
    """
    import openai

    key = os.environ.get(endpoint.api_key_env) or os.environ.get("CODUR_API_KEY")
    client = openai.OpenAI(base_url=endpoint.base_url, api_key=key or "not-set", timeout=timeout_s, max_retries=0)
    try:
        client.models.list()
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        said = " ".join(str(getattr(exc, "message", exc)).split())[:160]
        held = f"the key in {endpoint.api_key_env}" if key else f"no key ({endpoint.api_key_env} is not set)"
        raise EndpointUnusable(f"{endpoint.base_url}: authentication refused (HTTP {exc.status_code}) with {held}: "
                               f"{said}", "authentication") from None
    except openai.APITimeoutError:
        raise EndpointUnusable(f"{endpoint.base_url}: no answer within {timeout_s:g} s (network: is the server up "
                               "and the address right?)", "network") from None
    except openai.APIConnectionError as exc:
        why = " ".join(str(exc.__cause__ or exc).split())[:160]
        raise EndpointUnusable(f"{endpoint.base_url}: cannot connect (network: {why})", "network") from None
    except openai.APIStatusError:
        return  # it answered: the endpoint is there


def preflight(config: object, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> None:
    """Check every endpoint of ``config`` (:func:`endpoints`, :func:`check_endpoint`).

    Raises:
        EndpointUnusable: the first endpoint that cannot serve the run.
    """
    for endpoint in endpoints(config):
        check_endpoint(endpoint, timeout_s)

