"""Issue 36, item 6: every model call ends when its time does, even when the server drips its
reply a byte at a time (httpx's timeout is per read: each byte resets it)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import openai
import pytest

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.llm.deadline import DeadlineChatOpenAI, DeadlineExceeded


def _model(server, **fields) -> DeadlineChatOpenAI:
    return DeadlineChatOpenAI(base_url=server.base_url, api_key="x", model="fault", max_retries=0, **fields)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_dripped_reply_ends_at_the_call_timeout(faults, fault_server, stream: bool) -> None:
    hung_up = threading.Event()
    fault_server.play(default=faults.drip(0.3, hung_up))  # ~300 bytes: 90 s in all, a byte every 0.3 s
    model = _model(fault_server, timeout=2, stream_replies=stream, cancel=threading.Event() if stream else None)
    t0 = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        model.invoke("hello")
    assert time.monotonic() - t0 < 4  # 2 s and the time to notice
    assert hung_up.wait(3)  # the connection was closed: the server stops sending


def test_a_dripped_reply_ends_at_the_run_deadline(faults, fault_server) -> None:
    hung_up = threading.Event()
    fault_server.play(default=faults.drip(0.3, hung_up))
    model = _model(fault_server, timeout=60, deadline=time.monotonic() + 2)
    t0 = time.monotonic()
    with pytest.raises(DeadlineExceeded, match="the run's time was up during the model call"):
        model.invoke("hello")
    assert time.monotonic() - t0 < 4


def test_a_reply_within_its_time_is_whole(faults, fault_server) -> None:
    hung_up = threading.Event()
    fault_server.play(default=faults.drip(0.001, hung_up, content="ok"))
    assert _model(fault_server, timeout=20).invoke("hello").content == "ok"
    assert not hung_up.is_set()


def test_a_dripping_endpoint_cannot_hold_a_run_past_its_timeout(faults, fault_server, ages_repo: Path) -> None:
    """Measured before: a reply dripped a byte every 2 s kept one call in flight for 898 s, three
    times the run's --timeout. Now the run ends a few seconds after its 6 s."""
    hung_up = threading.Event()
    fault_server.play(default=faults.drip(1.0, hung_up))
    config = CodurConfig(base_url=fault_server.base_url, model="fault", api_key="k", critic=False, max_retries=2,
                         retry_base_delay_s=0, repair_workers=1, fixers=["agent"], timeout_s=6)
    t0 = time.monotonic()
    result = run(RunRequest(task="is_adult(18) should be True", repo=ages_repo), config=config)
    elapsed = time.monotonic() - t0
    assert result.status is RunStatus.TIMEOUT, result.reason
    assert elapsed < 6 + 8, elapsed  # the run's start (tests, plan) and the end's report, on a loaded machine
    assert "return age > 18" in (ages_repo / "ages.py").read_text()
    assert fault_server.requests  # the model was called, and cut
