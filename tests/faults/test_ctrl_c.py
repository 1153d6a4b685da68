"""Ctrl-C on the real ``codur`` command: one SIGINT wherever the run is (a test run, mutation
search, a model call that never answers) ends it ``cancelled``, exit code 130, result written,
files whole; a second one exits within 2 s without a traceback.

On main a Ctrl-C during a test run ended ``error`` (ToolError: the run was cancelled) with exit
code 1, and during mutation search ``failed``/``no_plausible_patch`` with exit code 1.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

AGES_BUG = "return age > 18"


def start(repo: Path, task: str, server, **env: str) -> subprocess.Popen:
    environment = {**os.environ, "CODUR_BASE_URL": server.base_url, "CODUR_MODEL": "fault", "CODUR_API_KEY": "k",
                   "CODUR_CRITIC": "false", "CODUR_MAX_RETRIES": "0", "CODUR_REPAIR_WORKERS": "1", **env}
    return subprocess.Popen([sys.executable, "-m", "codur.commands", task, "--repo", str(repo)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=environment)


def events(repo: Path) -> list[dict]:
    out = []
    for trace in (repo / ".codur" / "runs").glob("*/trace.jsonl"):
        for line in trace.read_text().splitlines():
            with contextlib.suppress(ValueError):  # a line being written
                out.append(json.loads(line))
    return out


def wait_for(condition: Callable[[], bool], proc: subprocess.Popen, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run never got there"
        time.sleep(0.05)


def finish(proc: subprocess.Popen, repo: Path, within_s: float = 30.0) -> tuple[dict, str]:
    t0 = time.monotonic()
    _, stderr = proc.communicate(timeout=within_s)
    assert proc.returncode == 130, stderr[-2000:]
    assert "Traceback" not in stderr, stderr[-2000:]
    [result] = list((repo / ".codur" / "runs").glob("*/result.json"))
    return json.loads(result.read_text()), f"{time.monotonic() - t0:.1f}s"


def test_ctrl_c_during_a_test_run(fault_server, ages_repo: Path):
    (ages_repo / "test_slow.py").write_text("import time\n\n\ndef test_slow():\n    time.sleep(8)\n")
    proc = start(ages_repo, "make the failing tests pass", fault_server, CODUR_FIXERS='["mutation"]')
    wait_for(lambda: any(e["event_type"] == "tests.command" for e in events(ages_repo)), proc)
    time.sleep(1.0)  # pytest is running test_slow
    proc.send_signal(signal.SIGINT)
    result, took = finish(proc, ages_repo)
    assert result["status"] == "cancelled" and result["reason"] == "cancelled", (result["reason"], took)
    assert AGES_BUG in (ages_repo / "ages.py").read_text()


def test_ctrl_c_during_mutation_search(fault_server, ages_repo: Path):
    # a bug no mutant fixes, and a test that takes a while: the search runs for minutes
    (ages_repo / "test_ages.py").write_text(
        "import time\n\nfrom ages import is_adult\n\n\ndef test_eighteen():\n    time.sleep(0.5)\n"
        "    assert is_adult(18) == 'yes'\n")
    proc = start(ages_repo, "make the failing tests pass", fault_server, CODUR_FIXERS='["mutation"]')
    wait_for(lambda: any(e["event_type"] == "patch.candidate" for e in events(ages_repo)), proc, 120)
    proc.send_signal(signal.SIGINT)
    result, took = finish(proc, ages_repo)
    assert result["status"] == "cancelled", (result["reason"], took)
    assert (ages_repo / "ages.py").read_text().count(AGES_BUG) == 1  # whole, unchanged


def test_ctrl_c_during_a_model_call_that_never_answers(faults, fault_server, ages_repo: Path):
    fault_server.play(default=faults.slow(600, fault_server.stop))
    proc = start(ages_repo, "is_adult(18) should be True", fault_server, CODUR_FIXERS='["agent"]')
    wait_for(lambda: bool(fault_server.requests), proc)
    proc.send_signal(signal.SIGINT)
    result, took = finish(proc, ages_repo)
    assert result["status"] == "cancelled", (result["reason"], took)
    assert "graph_thread" not in result["metadata"]["stop"]  # the call ended at the cancel: no thread left behind


def test_a_second_ctrl_c_exits_within_2_s(faults, fault_server, ages_repo: Path):
    fault_server.play(default=faults.slow(600, fault_server.stop))
    proc = start(ages_repo, "is_adult(18) should be True", fault_server, CODUR_FIXERS='["agent"]')
    wait_for(lambda: bool(fault_server.requests), proc)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.3)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    result, _ = finish(proc, ages_repo)
    assert time.monotonic() - t0 < 2.0 + 1.0  # 2 s, with a margin for a loaded machine
    assert result["status"] == "cancelled"
