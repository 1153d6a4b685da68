"""The one model-call policy (issue 14, item 5): retries, what is never retried, fallback."""

from __future__ import annotations

import threading
import time

import httpx
import openai
import pytest
from langchain_core.messages import HumanMessage

from codur.llm import ScriptedChatModel
from codur.llm.deadline import DeadlineExceeded
from codur.llm.policy import CallPolicy, with_policy


def status_error(status: int, code: str = "", headers: dict | None = None) -> openai.APIStatusError:
    body = {"message": f"error {status}", "code": code}
    response = httpx.Response(status, headers=headers or {}, json={"error": body},
                              request=httpx.Request("POST", "http://127.0.0.1/v1/chat/completions"))
    cls = openai.RateLimitError if status == 429 else openai.InternalServerError if status >= 500 \
        else openai.BadRequestError
    return cls(f"Error code: {status}", response=response, body=body)


NOW = [HumanMessage("hi")]


@pytest.mark.parametrize("error,retried", [
    (RuntimeError("Connection error."), True),
    (status_error(500), True),
    (status_error(429, "rate_limit_exceeded", {"retry-after": "120"}), False),  # long Retry-After: not waited
    (status_error(429, "insufficient_quota"), False),
    (status_error(400), False),
    (DeadlineExceeded("time is up"), False),
], ids=["connection", "500", "429-long-retry-after", "insufficient-quota", "400", "deadline"])
def test_what_is_retried(error: Exception, retried: bool) -> None:
    model = ScriptedChatModel(replies=[error, "ok"])
    chain = with_policy([model], CallPolicy(max_retries=2, base_delay_s=0))
    if retried:
        assert chain.invoke(NOW).content == "ok" and len(model.calls) == 2
    else:
        with pytest.raises(type(error)):
            chain.invoke(NOW)
        assert len(model.calls) == 1


def test_no_retry_past_the_deadline_or_after_cancel() -> None:
    cancel = threading.Event()
    cancel.set()
    past = CallPolicy(base_delay_s=0, deadline=time.monotonic() - 1)
    cancelled = CallPolicy(base_delay_s=0, cancel=cancel)
    for policy in (past, cancelled):
        model = ScriptedChatModel(replies=[RuntimeError("500"), "ok"])
        with pytest.raises(RuntimeError):
            with_policy([model], policy).invoke(NOW)
        assert len(model.calls) == 1


def test_backoff_doubles_up_to_thirty_seconds() -> None:
    policy = CallPolicy(base_delay_s=2.0)
    assert [policy.delay_s(n) for n in range(6)] == [2.0, 4.0, 8.0, 16.0, 30.0, 30.0]


def test_the_next_profile_after_the_retries_and_later_calls_start_there() -> None:
    down = ScriptedChatModel(replies=[RuntimeError("500")] * 3)
    quota = ScriptedChatModel(replies=[status_error(429, "insufficient_quota")])
    up = ScriptedChatModel(replies=["first", "second"])
    chain = with_policy([down, quota, up], CallPolicy(max_retries=2, base_delay_s=0), role="planner")
    assert chain.invoke(NOW).content == "first"
    assert (len(down.calls), len(quota.calls), len(up.calls)) == (3, 1, 1)  # 429 quota: no retry, next profile
    assert chain.invoke(NOW).content == "second"
    assert (len(down.calls), len(quota.calls), len(up.calls)) == (3, 1, 2)  # the down profiles are not asked again


def test_every_profile_down_raises_the_first_error() -> None:
    first = ScriptedChatModel(replies=[status_error(429, "insufficient_quota")])
    second = ScriptedChatModel(replies=[RuntimeError("500")] * 2)
    with pytest.raises(openai.RateLimitError):
        with_policy([first, second], CallPolicy(max_retries=1, base_delay_s=0)).invoke(NOW)
    assert len(second.calls) == 2
