"""Quota detection: turn a provider's 429 or an agent's complaint into a :class:`QuotaState`.

Two sources, one answer:

- :func:`quota_from_exception` reads the openai SDK's errors (``openai.RateLimitError``,
  ``openai.APIStatusError`` with status 429), which is what langchain-openai raises for any
  OpenAI-compatible endpoint.
- :func:`quota_from_output` reads the stdout/stderr of a command-line agent.

``QUOTA_EXHAUSTED`` means retrying cannot help (billing, ``insufficient_quota``, a usage
limit); ``RATE_LIMITED`` means wait and try later. The AgentRunner retries neither.
"""

from __future__ import annotations

import re
import time
from email.utils import parsedate_to_datetime

from codur.core.ports import QuotaState, QuotaStatus

_MESSAGE_CAP = 300  # characters of the provider's words kept in QuotaState.message

_URL = re.compile(r"https?://\S+")  # ".../account/billing" in a rate-limit message is no verdict
_EXHAUSTED_WORDS = re.compile(r"insufficient_quota|quota|billing", re.IGNORECASE)

_EXHAUSTED_OUTPUT = re.compile(
    r"insufficient_quota|quota[ _-]?exceeded|exceeded (?:your |the )?(?:current )?quota"
    r"|usage limit",
    re.IGNORECASE,
)
# "rate limit" only as a verdict ("rate limit reached", "rate limited", "rate_limit_error"),
# so an agent working on a RateLimiter class is not taken for a rate-limited one.
_RATE_LIMITED_OUTPUT = re.compile(
    r"rate[ _-]?limit(?:ed\b|[ _-]?(?:reached|exceeded|error|hit)\b)"
    r"|(?:hit|reached|exceeded)\s+(?:the\s+|a\s+|your\s+)?rate[ _-]?limit|too many requests"
    r"|\b(?:HTTP(?:/[\d.]+)?|status|error|code)\W{0,3}(?:code\W{0,3})?429\b",
    re.IGNORECASE,
)
_RETRY_AFTER_OUTPUT = re.compile(
    r"retry[ _-]after\W{0,3}(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|seconds?|m|min|minutes?)?\b"
    r"|try again in\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|seconds?|m|min|minutes?)?\b",
    re.IGNORECASE,
)


def quota_from_exception(exc: BaseException) -> QuotaState:
    """Read quota information from an exception raised by a model client.

    Args:
        exc: any exception. Only a 429 from the openai SDK (``openai.RateLimitError``, or any
            error with ``status_code == 429``, e.g. ``openai.APIStatusError``) counts; its
            ``__cause__`` chain is followed, so a wrapped 429 is still seen.

    Returns:
        ``QUOTA_EXHAUSTED`` when the error code is ``insufficient_quota`` or the message
        mentions quota or billing; else ``RATE_LIMITED`` with ``retry_after_seconds`` from the
        ``Retry-After`` header (seconds or an HTTP date) or ``retry-after-ms``; anything
        else gives ``QuotaState()`` (OK). An error code ``rate_limit_exceeded`` is always
        RATE_LIMITED, and words inside URLs (".../account/billing") do not count. Never raises.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if getattr(current, "status_code", None) == 429:
            return _state_from_429(current)
        current = current.__cause__
    return QuotaState()


def quota_from_output(text: str) -> QuotaState:
    """Read quota information from a command-line agent's stdout/stderr.

    Args:
        text: the output, any length.

    Returns:
        ``QUOTA_EXHAUSTED`` for "quota exceeded", "exceeded your current quota",
        "insufficient_quota", "usage limit"; ``RATE_LIMITED`` for "rate limit reached /
        exceeded / error", "rate limited", "Too Many Requests", "error 429" /
        "status code 429" / "HTTP/1.1 429" (a bare 429 could be a line number), with
        ``retry_after_seconds`` from "retry after N" / "Retry-After: N" / "try again in Ns"
        (units ms, s, m; seconds when none); else OK. ``message`` is the matching line.
    """
    text = _URL.sub("<url>", text)
    match = _EXHAUSTED_OUTPUT.search(text)
    if match:
        return QuotaState(QuotaStatus.QUOTA_EXHAUSTED, None, _line_around(text, match.start()))
    match = _RATE_LIMITED_OUTPUT.search(text)
    if match:
        return QuotaState(
            QuotaStatus.RATE_LIMITED, _retry_after_in_text(text), _line_around(text, match.start())
        )
    return QuotaState()


def _state_from_429(exc: BaseException) -> QuotaState:
    body = getattr(exc, "body", None)
    error = body.get("error", body) if isinstance(body, dict) else {}
    codes = {str(getattr(exc, name, None) or error.get(name) or "") for name in ("code", "type")}
    body_message = str(error.get("message") or "")
    message = (body_message or str(getattr(exc, "message", "") or exc))[:_MESSAGE_CAP]
    if "insufficient_quota" in codes or (
        "rate_limit_exceeded" not in codes and _EXHAUSTED_WORDS.search(_URL.sub("", message))
    ):
        return QuotaState(QuotaStatus.QUOTA_EXHAUSTED, None, message)
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    return QuotaState(QuotaStatus.RATE_LIMITED, _retry_after_from_headers(headers), message)


def _retry_after_from_headers(headers) -> float | None:
    """Seconds from ``retry-after-ms`` or ``Retry-After`` (delta-seconds or HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _retry_after_in_text(text: str) -> float | None:
    match = _RETRY_AFTER_OUTPUT.search(text)
    if not match:
        return None
    number = float(match.group(1) or match.group(3))
    unit = (match.group(2) or match.group(4) or "s").lower()
    if unit.startswith(("ms", "milli")):
        return number / 1000.0
    if unit.startswith("m"):
        return number * 60.0
    return number


def _line_around(text: str, index: int) -> str:
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    return text[start : end if end != -1 else len(text)].strip()[:_MESSAGE_CAP]
