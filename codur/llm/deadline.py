"""Model calls inside the run's deadline, with the provider's Retry-After honoured.

:class:`DeadlineChatOpenAI` is the ChatOpenAI every profile gets (:mod:`codur.llm.factory`):

- each call's HTTP timeout is ``min(profile timeout, seconds left before the deadline)``; a call
  made after the deadline raises :class:`DeadlineExceeded` without touching the network, and a
  call whose timeout was cut to the time left and timed out raises it too (so a 10 s run whose
  model answers in 30 s ends near 10 s, not 35 s);
- a 429 whose ``Retry-After`` (seconds, ``retry-after-ms`` or an HTTP date, read by
  :func:`codur.llm.quota.quota_from_exception`) is at most ``retry_after_cap_s`` and ends before
  the deadline is waited for, and the call made again (at most :data:`RETRY_AFTER_WAITS` times);
  any other 429 is raised, and the AgentRunner does not retry it.

Streams get the same timeout; a stream is never made again (part of it may have been used).

**A hard wall-clock limit per call.** The HTTP timeout is httpx's, per read: a server that
drips a byte every few seconds never trips it (measured: one call held 898 s under a 300 s
run). So every call also runs under :func:`hard_limit`: a timer of the same seconds (the
profile's timeout, cut to the run's time left) that, when it fires, shuts down the sockets of
the call's responses (recorded by an httpx response hook on the client every model gets,
:func:`codur.llm.http.shared_http_client`), so the read in progress fails at once; the call then raises
``openai.APITimeoutError`` or, when the limit was the run's time left, :class:`DeadlineExceeded`.
A reply streamed chunk by chunk is bounded the same way, from the request to the last chunk.
The same client asks for uncompressed replies, refuses a compressed one and stops reading a
body past :data:`codur.llm.http.MAX_REPLY_BYTES` (16 MiB), so no reply can take the machine's memory.

With the run's ``cancel`` event, a plain call waits for its reply in a helper thread and
raises :class:`ModelCallCancelled` as soon as the event is set (Ctrl-C during a call to a
model that never answers ends the run at once; the helper is a daemon thread, left to its
timeout); a stream stops at the next chunk. With ``stream_replies`` (the embedded server) the
helper streams the reply and closes the stream at the next chunk after the event, so the
server drops the request instead of generating to ``max_tokens``.

Every call in flight is counted per base URL (:func:`wait_idle`): the embedded server is
released only once no call to it is in flight, because releasing it waits for its open
requests while holding the interpreter lock, and the call that would close its request then
never runs (a run cancelled during a model call hung at exit). A call to a model on this
machine (``cpu_threads``: the embedded server's threads) is also counted in the process's CPU
budget (:mod:`codur.core.cpu`) while it is in flight: test runs beside it get the cores its
threads leave.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import openai

try:  # the HTTP library openai's client is built on: httpx2 in this openai, httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover - an older openai
    import httpx  # type: ignore[no-redef]
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import generate_from_stream
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_openai import ChatOpenAI
from pydantic import Field

from codur.core import cpu
from codur.core.ports import QuotaStatus
from codur.llm.breaker import CircuitBreaker
from codur.llm.http import RESPONSES, SocketCut, failure_of, shared_http_client
from codur.llm.quota import quota_from_exception
from codur.llm.usage import recorded_completion

RETRY_AFTER_WAITS = 2  # Retry-After waits per call at most
T = TypeVar("T")


class DeadlineExceeded(TimeoutError):
    """The run's deadline passed before or during a model call. Never worth a retry."""


class ModelCallCancelled(RuntimeError):
    """The run was cancelled while the model call was in flight. Never worth a retry."""


_in_flight: Counter[str] = Counter()  # calls in flight per base URL
_idle = threading.Condition()


@contextlib.contextmanager
def hard_limit(seconds: float | None, base_url: str, cut: bool) -> Iterator[None]:
    """Bound the model call made inside the block to ``seconds`` of wall-clock time, however the
    server sends its reply (all at once, chunk by chunk, a byte at a time).

    Args:
        seconds: the limit; None: no limit.
        base_url: the endpoint, for the error.
        cut: the limit is the run's time left (then the error is DeadlineExceeded).

    Raises:
        DeadlineExceeded: ``cut`` and the limit was reached.
        openai.APITimeoutError: the limit was reached otherwise.
    """
    responses: list[httpx.Response] = []
    token = RESPONSES.set(responses)
    limit = SocketCut(responses)
    timer = threading.Timer(seconds, limit.fire) if seconds is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        yield
    except Exception as exc:
        if not limit.fired.is_set():
            raise
        if cut:
            raise DeadlineExceeded(f"the run's time was up during the model call ({seconds:.1f}s)") from exc
        raise openai.APITimeoutError(request=httpx.Request("POST", base_url)) from exc
    finally:
        if timer is not None:
            timer.cancel()
        with contextlib.suppress(ValueError):  # a generator closed in another context
            RESPONSES.reset(token)


@contextlib.contextmanager
def _counted(base_url: str, cpu_threads: int = 0) -> Iterator[None]:
    """The call in flight, counted per base URL and, for a model on this machine (``cpu_threads``
    > 0: its server's threads), in the process's CPU budget (:meth:`codur.core.cpu.CpuBudget.generating`)."""
    with _idle:
        _in_flight[base_url] += 1
    try:
        with cpu.budget().generating(cpu_threads):
            yield
    finally:
        with _idle:
            _in_flight[base_url] -= 1
            _idle.notify_all()


def wait_idle(base_url: str, timeout_s: float) -> bool:
    """Wait until no model call to ``base_url`` is in flight, at most ``timeout_s`` seconds
    (the interpreter lock is released meanwhile). Returns whether none is."""
    with _idle:
        return _idle.wait_for(lambda: _in_flight[base_url] <= 0, timeout_s)


def _cancellable(call: Callable[[], T], cancel: threading.Event) -> T:
    """``call()`` in a daemon helper thread (with this thread's context variables); raises
    ModelCallCancelled when ``cancel`` is set first, else returns or raises what it did."""
    box: dict[str, Any] = {}
    done = threading.Event()
    context = contextvars.copy_context()

    def work() -> None:
        try:
            box["value"] = context.run(call)
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="codur-model-call", daemon=True).start()
    while not done.wait(0.1):
        if cancel.is_set():
            raise ModelCallCancelled("the run was cancelled during the model call")
    if "error" in box:
        raise box["error"]
    return box["value"]




class DeadlineChatOpenAI(ChatOpenAI):
    """ChatOpenAI with the run's deadline and Retry-After handling (see the module docstring).

    Attributes:
        deadline: ``time.monotonic()`` value after which no call is made; None: no deadline.
        retry_after_cap_s: longest Retry-After waited for, seconds.
        cancel: the run's cancel event, or None: a call in flight ends when it is set.
        stream_replies: a plain call streams its reply (so a cancel closes the stream).
        cpu_threads: threads of the model's server on this machine (the embedded one), counted
            in the CPU budget while a call is in flight; 0 for a model elsewhere.
        http_client: the httpx client (default :func:`shared_http_client`, whose response hook
            lets :func:`hard_limit` end a call that overruns).
        breaker: the run's :class:`CircuitBreaker` (shared by every role's model), or None.
    """

    deadline: float | None = Field(None, exclude=True)
    retry_after_cap_s: float = Field(30.0, exclude=True)
    cancel: threading.Event | None = Field(None, exclude=True)
    stream_replies: bool = Field(False, exclude=True)
    cpu_threads: int = Field(0, exclude=True)
    http_client: Any = Field(default_factory=shared_http_client, exclude=True)
    breaker: CircuitBreaker | None = Field(None, exclude=True)

    def _timeout(self) -> tuple[float | None, bool]:
        """(timeout for this call in seconds, the HTTP timeout and the wall-clock limit, or None for
        none; was it cut to the run's time left?)."""
        own = self.request_timeout if isinstance(self.request_timeout, int | float) else None
        if self.deadline is None:
            return (float(own) if own is not None else None), False
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DeadlineExceeded("the run's time was up before the model call")
        return (left, True) if own is None or left < own else (float(own), False)

    def _retry_after(self, exc: Exception) -> float | None:
        """Seconds to wait before calling again after ``exc``, or None to raise it."""
        quota = quota_from_exception(exc)
        wait = quota.retry_after_seconds
        if quota.status is not QuotaStatus.RATE_LIMITED or wait is None or wait > self.retry_after_cap_s:
            return None
        if self.deadline is not None and time.monotonic() + wait >= self.deadline:
            return None
        return wait

    def _within_limits(self, call: Callable[[dict[str, Any]], T], kwargs: dict[str, Any]) -> T:
        waits = 0
        while True:
            timeout, cut = self._timeout()
            given = {**kwargs, "timeout": timeout} if timeout is not None else kwargs
            counted = functools.partial(self._count, call, given, timeout, cut)
            try:
                if self.cancel is None:
                    return counted()
                return _cancellable(counted, self.cancel)
            except openai.APITimeoutError as exc:
                if cut:
                    raise DeadlineExceeded(f"the run's time was up during the model call ({timeout:.1f}s)") from exc
                raise
            except openai.APIStatusError as exc:
                wait = self._retry_after(exc) if waits < RETRY_AFTER_WAITS else None
                if wait is None:
                    raise
                waits += 1
                time.sleep(wait)

    def _count(self, call: Callable[[dict[str, Any]], T], kwargs: dict[str, Any], timeout: float | None = None,
               cut: bool = False) -> T:
        with self._broken(), _counted(str(self.openai_api_base), self.cpu_threads), \
                hard_limit(timeout, str(self.openai_api_base), cut):
            return call(kwargs)

    @contextlib.contextmanager
    def _broken(self) -> Iterator[None]:
        """The call, through the run's circuit breaker: refused at once when the endpoint is given
        up; a timeout or connection failure counted, a success resets."""
        url = str(self.openai_api_base)
        if self.breaker is None:
            yield
            return
        self.breaker.check(url)
        try:
            yield
        except openai.APIConnectionError as exc:  # APITimeoutError included
            self.breaker.record(url, True, *failure_of(exc))
            raise
        self.breaker.record(url, failed=False)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        if self.cancel is not None and self.stream_replies and "response_format" not in kwargs:
            stream = super()._stream

            def streamed(kw: dict[str, Any]) -> ChatResult:  # stops at the next chunk once cancelled
                return generate_from_stream(self._checked(stream(messages, stop, run_manager, stream_usage=True, **kw)))

            return self._within_limits(streamed, kwargs)
        generate = super()._generate
        return self._within_limits(lambda kw: generate(messages, stop, run_manager, **kw), kwargs)

    def _checked(self, chunks: Iterator[ChatGenerationChunk]) -> Iterator[ChatGenerationChunk]:
        """``chunks`` until the run's cancel event is set (then the stream is closed)."""
        try:
            for chunk in chunks:
                if self.cancel is not None and self.cancel.is_set():
                    raise ModelCallCancelled("the run was cancelled during the model's reply")
                yield chunk
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        timeout, cut = self._timeout()
        if timeout is not None:
            kwargs["timeout"] = timeout
        try:
            with self._broken(), _counted(str(self.openai_api_base), self.cpu_threads), \
                    hard_limit(timeout, str(self.openai_api_base), cut):
                yield from self._checked(super()._stream(messages, stop, run_manager, **kwargs))
        except openai.APITimeoutError as exc:
            if cut:
                raise DeadlineExceeded(f"the run's time was up during the model call ({timeout:.1f}s)") from exc
            raise

    def fill(self, prompt: str, *, max_tokens: int, temperature: float, seed: int,
             stop: list[str], grammar: str | None = None) -> tuple[str, int]:
        """One raw text completion of ``prompt`` (the endpoint's ``/completions``: a fill-in-the-middle
        prompt of the cloze fixer, :mod:`codur.patch.fixers.cloze`), within the same limits as a chat
        call (timeout, deadline, cancel event, circuit breaker, CPU budget) and recorded like one in
        the run's usage ledger (:func:`codur.llm.usage.recorded_completion`). ``grammar``: a llama.cpp
        GBNF grammar the completion must follow (the request's ``grammar`` field; a server without
        it may refuse it with 400). Returns (text, tokens: prompt + completion). Raises what a chat
        call raises (``openai.OpenAIError``, :class:`DeadlineExceeded`, :class:`ModelCallCancelled`)."""
        def call(kw: dict[str, Any]) -> tuple[str, int, int]:
            reply = self.root_client.completions.create(
                model=self.model_name, prompt=prompt, max_tokens=max_tokens, temperature=temperature, seed=seed,
                stop=stop, **({"timeout": kw["timeout"]} if "timeout" in kw else {}),
                **({"extra_body": {"grammar": grammar}} if grammar else {}))
            usage = reply.usage
            return ((reply.choices[0].text if reply.choices else ""), usage.prompt_tokens if usage else 0,
                    usage.completion_tokens if usage else 0)

        text, tokens_in, tokens_out = recorded_completion(self.callbacks, self.model_name, prompt,
                                                          lambda: self._within_limits(call, {}))
        return text, tokens_in + tokens_out
