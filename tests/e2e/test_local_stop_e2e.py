"""The embedded server is released promptly after a run is cancelled during a model call.

Releasing the llama.cpp server waits for its open requests while holding the interpreter
lock; a call abandoned by a cancelled run used to keep its request open, and ``codur`` hung
at exit after SIGTERM. The scenario runs in a child process, so a hang fails the test
instead of stalling the suite.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

SCENARIO = r"""
import threading, time
from langchain_core.messages import HumanMessage
from codur.config import CodurConfig
from codur.llm.deadline import ModelCallCancelled
from codur.llm.factory import ConfigModelProvider
from codur.llm.local import stop_shared_server

cancel = threading.Event()
model = ConfigModelProvider(CodurConfig(), cancel=cancel).models_for("actor")[0]
outcome = {}

def call():
    try:
        model.invoke([HumanMessage("Write a long essay about rivers, with ten sections.")], max_tokens=600)
        outcome["call"] = "finished"
    except ModelCallCancelled:
        outcome["call"] = "cancelled"

worker = threading.Thread(target=call)
worker.start()
time.sleep(3)
cancel.set()
worker.join()
t0 = time.monotonic()
stop_shared_server()
print(outcome["call"], round(time.monotonic() - t0, 1))
"""


@pytest.mark.usefixtures("local_model_installed")
def test_the_server_is_released_after_a_cancelled_call():
    proc = subprocess.run([sys.executable, "-c", SCENARIO], capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    outcome, seconds = proc.stdout.split()
    assert outcome == "cancelled"
    assert float(seconds) < 15, f"the server took {seconds} s to release"
