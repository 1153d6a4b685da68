"""Issue 36, item 6: a cap on a model reply's size: a gzip reply inflating to 400 MB took codur
to 2.1 GB; now a compressed reply is refused (codur asks for ``identity``) and an uncompressed
one stops being read past 16 MiB."""

from __future__ import annotations

import resource
import time

import openai
import pytest

from codur.llm.deadline import DeadlineChatOpenAI
from codur.llm.http import MAX_REPLY_BYTES


def _model(server) -> DeadlineChatOpenAI:
    return DeadlineChatOpenAI(base_url=server.base_url, api_key="x", model="fault", max_retries=0, timeout=30)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_a_gzip_bomb_is_not_inflated(faults, fault_server) -> None:
    seen: list[str] = []
    fault_server.play(default=faults.gzip_bomb(400 * 1024 * 1024, seen))  # 400 MB inflated, ~400 kB sent
    before = _peak_mb()
    t0 = time.monotonic()
    with pytest.raises(openai.APIConnectionError):
        _model(fault_server).invoke("hello")
    assert time.monotonic() - t0 < 10
    assert seen == ["identity"]
    assert _peak_mb() - before < 100  # the 400 MB never existed


def test_an_oversized_plain_reply_stops_at_the_cap(faults, fault_server) -> None:
    fault_server.play(default=faults.huge(MAX_REPLY_BYTES + 1024 * 1024))
    with pytest.raises(openai.APIConnectionError):
        _model(fault_server).invoke("hello")


def test_a_normal_reply_passes(faults, fault_server) -> None:
    fault_server.play(default=faults.ok("fine"))
    assert _model(fault_server).invoke("hello").content == "fine"
