"""The run's deadline in model calls and in the AgentRunner's retries."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from codur.config import CodurConfig
from codur.config.tables import ModelProfile
from codur.core.ports import AgentResult, AgentTask
from codur.llm.agent_runner import AgentRunner
from codur.llm.deadline import DeadlineExceeded
from codur.llm.factory import CallBounds, ConfigModelProvider, get_chat_model


class Failing:
    name = "failing"

    def __init__(self, exc: Exception) -> None:
        self.exc, self.calls = exc, 0

    def run(self, plan: AgentTask) -> AgentResult:
        self.calls += 1
        raise self.exc


def test_deadline_exceeded_is_not_retried(tmp_path: Path):
    agent = Failing(DeadlineExceeded("time up"))
    result = AgentRunner(agent, max_retries=3, base_delay=0, sleep=lambda s: None).execute(
        AgentTask(prompt="p", repo_root=tmp_path))
    assert not result.success and agent.calls == 1


def test_no_retry_whose_backoff_ends_past_the_deadline(tmp_path: Path):
    agent, slept = Failing(RuntimeError("500")), []
    executor = AgentRunner(agent, max_retries=3, base_delay=2.0, sleep=slept.append,
                        deadline=time.monotonic() + 3.0)
    executor.execute(AgentTask(prompt="p", repo_root=tmp_path))
    assert slept == [2.0] and agent.calls == 2  # the second backoff (4 s) would end past the deadline


def test_call_timeout_is_cut_to_the_time_left():
    profile = ModelProfile(base_url="http://127.0.0.1:9/v1", model="x", timeout_s=300)
    model = get_chat_model(profile, bounds=CallBounds(deadline=time.monotonic() + 10))
    timeout, cut = model._timeout()
    assert cut and 5 < timeout <= 10  # what is left of the 10 s (building the model may take a second or two)
    assert get_chat_model(profile, bounds=CallBounds(deadline=time.monotonic() + 1000))._timeout() == (300.0, False)
    with pytest.raises(DeadlineExceeded):
        get_chat_model(profile, bounds=CallBounds(deadline=time.monotonic() - 1)).invoke("hi")  # no network: time is up


def test_the_request_timeout_is_model_timeout_s_unless_the_profile_sets_one():
    config = CodurConfig(base_url="http://127.0.0.1:9/v1", model="x", model_timeout_s=7,
                         profiles={"own": {"base_url": "http://127.0.0.1:9/v1", "model": "y", "timeout_s": 3}})
    provider = ConfigModelProvider(config)
    assert provider.models_for("actor")[0].request_timeout == 7
    assert provider.models_for_profile("own")[0].request_timeout == 3
    assert CodurConfig(model_timeout_s=7).profiles_for("actor")[0].timeout_s == 300  # the embedded model's own


def _streaming_model(server, cancel):
    from codur.llm.deadline import DeadlineChatOpenAI

    return DeadlineChatOpenAI(base_url=server.base_url, api_key="x", model="fault", max_retries=0, timeout=30,
                              cancel=cancel, stream_replies=True)


def test_a_streamed_call_is_whole_when_not_cancelled():
    import threading

    from tests.faults.server import FaultServer, trickle

    hung_up = threading.Event()
    server = FaultServer().start().play(trickle(["def f", "():\n", "    return 1"], 0.01, hung_up))
    try:
        reply = _streaming_model(server, threading.Event()).invoke("write f")
        assert reply.content == "def f():\n    return 1"
        assert server.requests[0][1]["stream"] is True
        assert not hung_up.is_set()
    finally:
        server.close()


def test_a_cancelled_call_closes_its_stream_and_the_server_is_idle_at_once():
    """Ctrl-C or SIGTERM during a model call: the call raises at once, the helper closes the
    HTTP stream at the next chunk (the server stops generating), and ``wait_idle`` (what the
    embedded server's release waits for) returns well before the reply would have ended."""
    import threading

    from codur.llm.deadline import ModelCallCancelled, wait_idle
    from tests.faults.server import FaultServer, trickle

    hung_up, cancel = threading.Event(), threading.Event()
    server = FaultServer().start().play(trickle(["x"] * 100, 0.1, hung_up))  # 10 s of reply
    try:
        model = _streaming_model(server, cancel)
        threading.Timer(0.5, cancel.set).start()
        t0 = time.monotonic()
        with pytest.raises(ModelCallCancelled):
            model.invoke("write a long essay")
        assert time.monotonic() - t0 < 2.0
        assert wait_idle(server.base_url, 3.0)
        assert hung_up.wait(2.0)  # the server saw the client go
        assert time.monotonic() - t0 < 4.0
    finally:
        server.close()


def test_wait_idle_waits_for_a_call_in_flight():
    import threading

    from codur.llm.deadline import _counted, wait_idle

    url = "http://127.0.0.1:1/v1"
    release = threading.Event()

    def call() -> None:
        with _counted(url):
            release.wait(5)

    worker = threading.Thread(target=call)
    worker.start()
    time.sleep(0.05)
    assert not wait_idle(url, 0.2)
    release.set()
    assert wait_idle(url, 2.0)
    worker.join()
