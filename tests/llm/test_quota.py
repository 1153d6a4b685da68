"""quota_from_exception with real openai error objects; quota_from_output with CLI phrases."""

from __future__ import annotations

import importlib
import importlib.util
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import openai
import pytest

from codur.core.ports import QuotaStatus
from codur.llm.quota import quota_from_exception, quota_from_output

# openai 3.x is built on httpx2, older versions on httpx: the error objects accept either.
HTTP_MODULES = [m for m in ("httpx", "httpx2") if importlib.util.find_spec(m)]


@pytest.fixture(params=HTTP_MODULES)
def http(request):
    return importlib.import_module(request.param)


def _error(http, status=429, headers=None, error=None, cls=None):
    """Build the error the way the openai client does (body = the "error" object)."""
    body = {"error": error or {"message": "Rate limit reached", "code": "rate_limit_exceeded"}}
    response = http.Response(
        status, headers=headers or {}, json=body, request=http.Request("POST", "http://x")
    )
    cls = cls or (openai.RateLimitError if status == 429 else openai.APIStatusError)
    return cls(f"Error code: {status} - {body}", response=response, body=body["error"])


def test_rate_limit_error_with_retry_after_seconds(http):
    state = quota_from_exception(_error(http, headers={"retry-after": "7"}))
    assert state.status is QuotaStatus.RATE_LIMITED
    assert state.retry_after_seconds == 7.0
    assert state.message == "Rate limit reached"


def test_retry_after_as_http_date(http):
    when = datetime.now(UTC) + timedelta(seconds=120)
    headers = {"Retry-After": format_datetime(when, usegmt=True)}
    state = quota_from_exception(_error(http, headers=headers))
    assert state.status is QuotaStatus.RATE_LIMITED
    assert 100 <= state.retry_after_seconds <= 121


def test_retry_after_ms_header(http):
    state = quota_from_exception(_error(http, headers={"retry-after-ms": "1500"}))
    assert state.retry_after_seconds == 1.5


def test_rate_limit_without_retry_after(http):
    state = quota_from_exception(_error(http))
    assert state.status is QuotaStatus.RATE_LIMITED
    assert state.retry_after_seconds is None


def test_insufficient_quota_code_is_exhausted(http):
    error = {
        "message": "You exceeded your current quota",
        "type": "insufficient_quota",
        "code": "insufficient_quota",
    }
    state = quota_from_exception(_error(http, error=error, headers={"retry-after": "1"}))
    assert state.status is QuotaStatus.QUOTA_EXHAUSTED
    assert state.retry_after_seconds is None
    assert "quota" in state.message


def test_billing_message_without_code_is_exhausted(http):
    error = {"message": "Please check your plan and billing details."}
    assert quota_from_exception(_error(http, error=error)).status is QuotaStatus.QUOTA_EXHAUSTED


def test_billing_url_in_a_rate_limit_message_is_not_exhaustion(http):
    error = {
        "message": "Rate limit reached. Add a payment method at "
        "https://platform.openai.com/account/billing to increase it."
    }
    assert quota_from_exception(_error(http, error=error)).status is QuotaStatus.RATE_LIMITED


def test_api_status_error_429_counts(http):
    exc = _error(http, cls=openai.APIStatusError, headers={"retry-after": "3"})
    assert type(exc) is openai.APIStatusError
    assert quota_from_exception(exc).status is QuotaStatus.RATE_LIMITED


def test_other_status_errors_are_ok(http):
    assert quota_from_exception(_error(http, status=500)).status is QuotaStatus.OK
    exc = _error(http, status=400, cls=openai.BadRequestError)
    assert quota_from_exception(exc).status is QuotaStatus.OK


def test_wrapped_429_is_seen(http):
    try:
        try:
            raise _error(http, headers={"retry-after": "2"})
        except openai.RateLimitError as inner:
            raise RuntimeError("model call failed") from inner
    except RuntimeError as outer:
        assert quota_from_exception(outer).retry_after_seconds == 2.0


def test_plain_exception_is_ok():
    assert quota_from_exception(ValueError("quota")).status is QuotaStatus.OK


@pytest.mark.parametrize(
    "text, status, retry_after",
    [
        ("Error: Rate limit reached for gpt-4o. Please try again in 20s.", "rate_limited", 20.0),
        ("HTTP/1.1 429 Too Many Requests", "rate_limited", None),
        ("API Error: status code 429", "rate_limited", None),
        ("rate limited; retry after 12 seconds", "rate_limited", 12.0),
        ("Retry-After: 30\nerror: too many requests", "rate_limited", 30.0),
        ("429: Too Many Requests, try again in 250ms", "rate_limited", 0.25),
        ("rate_limit_error: try again in 2m", "rate_limited", 120.0),
        ("Error: quota exceeded for this project", "quota_exhausted", None),
        ("{'code': 'insufficient_quota'}", "quota_exhausted", None),
        ("You've hit your usage limit. Upgrade to Pro.", "quota_exhausted", None),
        ("You exceeded your current quota, please check your plan", "quota_exhausted", None),
        ("Traceback ...\nAssertionError: 1 != 2", "ok", None),
        ("File 'app.py', line 429, in main", "ok", None),
        ("editing ratelimit.py: class RateLimiter", "ok", None),
        ("see https://example.com/billing/rate-limit-exceeded", "ok", None),
        ("", "ok", None),
    ],
)
def test_quota_from_output(text, status, retry_after):
    state = quota_from_output(text)
    assert state.status == status
    assert state.retry_after_seconds == retry_after


def test_output_message_is_the_matching_line():
    state = quota_from_output("starting\nError: Rate limit exceeded (org)\nbye")
    assert state.message == "Error: Rate limit exceeded (org)"
