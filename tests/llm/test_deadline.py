"""The run's deadline in model calls and in the Executor's retries."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from codur.config import CodurConfig
from codur.config_tables import ModelProfile
from codur.core.ports import ExecutionPlan, ExecutionResult
from codur.llm.deadline import DeadlineExceeded
from codur.llm.executor import Executor
from codur.llm.factory import ConfigModelProvider, get_chat_model


class Failing:
    name = "failing"

    def __init__(self, exc: Exception) -> None:
        self.exc, self.calls = exc, 0

    def run(self, plan: ExecutionPlan) -> ExecutionResult:
        self.calls += 1
        raise self.exc


def test_deadline_exceeded_is_not_retried(tmp_path: Path):
    agent = Failing(DeadlineExceeded("time up"))
    result = Executor(agent, max_retries=3, base_delay=0, sleep=lambda s: None).execute(
        ExecutionPlan(prompt="p", repo_root=tmp_path))
    assert not result.success and agent.calls == 1


def test_no_retry_whose_backoff_ends_past_the_deadline(tmp_path: Path):
    agent, slept = Failing(RuntimeError("500")), []
    executor = Executor(agent, max_retries=3, base_delay=2.0, sleep=slept.append,
                        deadline=time.monotonic() + 3.0)
    executor.execute(ExecutionPlan(prompt="p", repo_root=tmp_path))
    assert slept == [2.0] and agent.calls == 2  # the second backoff (4 s) would end past the deadline


def test_call_timeout_is_cut_to_the_time_left():
    profile = ModelProfile(base_url="http://127.0.0.1:9/v1", model="x", timeout_s=300)
    model = get_chat_model(profile, deadline=time.monotonic() + 10)
    timeout, cut = model._timeout()
    assert cut and 9 < timeout <= 10
    assert get_chat_model(profile, deadline=time.monotonic() + 1000)._timeout() == (300.0, False)
    with pytest.raises(DeadlineExceeded):
        get_chat_model(profile, deadline=time.monotonic() - 1).invoke("hi")  # no network: time is up


def test_the_request_timeout_is_model_timeout_s_unless_the_profile_sets_one():
    config = CodurConfig(base_url="http://127.0.0.1:9/v1", model="x", model_timeout_s=7,
                         profiles={"own": {"base_url": "http://127.0.0.1:9/v1", "model": "y", "timeout_s": 3}})
    provider = ConfigModelProvider(config)
    assert provider.models_for("actor")[0].request_timeout == 7
    assert provider.models_for_profile("own")[0].request_timeout == 3
    assert CodurConfig(model_timeout_s=7).profiles_for("actor")[0].timeout_s == 300  # the embedded model's own
