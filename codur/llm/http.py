"""The one HTTP client every model call goes through (:func:`shared_http_client`): it asks for
uncompressed replies, refuses a compressed one, stops reading a body past
:data:`MAX_REPLY_BYTES`, and notes each response of the call running in this context
(:data:`RESPONSES`) so the call's hard limit (:func:`codur.llm.deadline.hard_limit`) can shut
its sockets (:class:`SocketCut`)."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import socket
import threading
from collections.abc import Iterator
from typing import Any

import openai

try:  # the HTTP library openai's client is built on: httpx2 in this openai, httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover - an older openai
    import httpx  # type: ignore[no-redef]

#: The responses of the call running in this context (set by :func:`codur.llm.deadline.hard_limit`).
RESPONSES: contextvars.ContextVar[list[httpx.Response] | None] = contextvars.ContextVar(
    "codur_model_call_responses", default=None)


#: The largest reply body a model call reads, bytes: a chat completion is kilobytes; past it the
#: call fails instead of taking the machine's memory (a gzip reply inflating to 400 MB took 2.1 GB).
MAX_REPLY_BYTES = 16 * 1024 * 1024


class ReplyTooLarge(httpx.DecodingError):
    """A model reply over :data:`MAX_REPLY_BYTES`, or compressed although codur asked for none."""


class _CappedStream(httpx.SyncByteStream):
    """A response body that fails once more than ``cap`` bytes came."""

    def __init__(self, inner: Any, cap: int) -> None:
        self.inner, self.cap = inner, cap

    def __iter__(self) -> Iterator[bytes]:
        seen = 0
        for chunk in self.inner:
            seen += len(chunk)
            if seen > self.cap:
                raise ReplyTooLarge(f"the model's reply is over {self.cap} bytes; not read further")
            yield chunk

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()


def _on_response(response: httpx.Response) -> None:
    """httpx response hook (headers read, body not yet): note the response for the call's timer
    (:func:`codur.llm.deadline.hard_limit`), refuse a compressed body (the client asks for ``identity``: a
    decompression bomb never inflates), and cap the body at :data:`MAX_REPLY_BYTES`."""
    kept = RESPONSES.get()
    if kept is not None:
        kept.append(response)
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        response.close()
        raise ReplyTooLarge(f"the model's reply is compressed ({encoding}) although codur asked for none; "
                            "not decompressed")
    response.stream = _CappedStream(response.stream, MAX_REPLY_BYTES)


@functools.lru_cache(maxsize=1)
def shared_http_client() -> httpx.Client:
    """The one httpx client every model call goes through: openai's defaults (its timeouts,
    connection limits, redirects), ``Accept-Encoding: identity``, and the response hook
    (:func:`_on_response`: the hard limit's sockets, no compressed body, a size cap)."""
    return openai.DefaultHttpxClient(event_hooks={"response": [_on_response]},
                                     headers={"Accept-Encoding": "identity"})


class SocketCut:
    """The timer of one call (:func:`codur.llm.deadline.hard_limit`): :meth:`fire` shuts down the
    sockets of ``responses`` (the call's, as the response hook noted them) and sets ``fired``."""

    def __init__(self, responses: list[httpx.Response]) -> None:
        self.responses, self.fired = responses, threading.Event()

    def fire(self) -> None:
        """Shut the sockets: the blocked read in the call's thread fails at once."""
        self.fired.set()
        for response in list(self.responses):
            stream = response.extensions.get("network_stream")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)  # the blocked read in the call's thread fails now


def failure_of(exc: BaseException) -> tuple[str, str]:
    """(what a failed model call raised, naming its real cause; its kind for
    :meth:`codur.llm.deadline.CircuitBreaker.record`): a reply refused for its size or its compression
    (:class:`ReplyTooLarge`, which openai reports as a connection error) is
    ``reply refused``, a timeout ``timeout``, anything else a ``connection failure``."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ReplyTooLarge):
            return f"reply refused: {cause}"[:200], "reply refused"
        cause = cause.__cause__ or cause.__context__
    kind = "timeout" if isinstance(exc, openai.APITimeoutError) else "connection failure"
    return f"{type(exc).__name__}: {str(exc)[:120]}", kind
