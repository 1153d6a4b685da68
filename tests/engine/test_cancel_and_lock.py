"""Issue 12, items 2 and 9: cancelling stops a tool batch at once and the result is written
last; one run at a time per repo (a second one is refused with the holder's pid)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.engine.lock import RepoLock, RepoLocked
from codur.llm import ScriptedChatModel, StaticModelProvider

ROOT = Path(__file__).resolve().parents[2]
TASK = "add a module greet.py with a function hello() returning 'hi'"


def call(name: str, **arguments) -> dict:
    return {"name": name, "arguments": arguments}


def batch(*calls: dict) -> str:
    """Several tool calls in one reply, as fenced JSON (the local model's way)."""
    return "```json\n" + json.dumps(list(calls)) + "\n```"


@pytest.fixture
def small_repo(tmp_path: Path) -> Path:
    root = tmp_path / "small"
    root.mkdir()
    (root / "app.py").write_text("def main():\n    return 1\n")
    return root


@pytest.fixture
def sigint_default():
    """Ctrl-C raises KeyboardInterrupt by default (also when pytest was started under nohup)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def run_with(repo: Path, actor: list):
    models = {"actor": ScriptedChatModel(replies=actor)}
    config = CodurConfig(critic=False, repair=False, retry_base_delay_s=0, max_turns=1)
    return run(RunRequest(task=TASK, repo=repo), models=StaticModelProvider(models), config=config), models


def test_ctrl_c_during_a_batch_stops_the_rest_of_it(small_repo: Path, sigint_default, monkeypatch) -> None:
    monkeypatch.setenv("CODUR_SANDBOX", "off")  # the script signals codur's own pid (no PID namespace)
    (small_repo / "ctrl_c.py").write_text(f"import os, signal\nos.kill({os.getpid()}, signal.SIGINT)\n")
    reply = batch(call("run_python_file", path="ctrl_c.py"),
                  call("write_file", path="greet.py", content="def hello():\n    return 'hi'\n"),
                  call("write_file", path="more.py", content="x = 1\n"))
    result, models = run_with(small_repo, [reply, "never played"])
    assert result.status is RunStatus.CANCELLED
    assert not (small_repo / "greet.py").exists() and not (small_repo / "more.py").exists()
    assert result.diff == "" and len(models["actor"].calls) == 1


def test_second_ctrl_c_waits_for_the_graph_thread_and_writes_the_result_last(small_repo: Path,
                                                                            sigint_default) -> None:
    def two_ctrl_c_then_a_batch(_messages):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGINT)  # the impatient user: the runner stops waiting for the model
        time.sleep(1.0)  # the model call is still running when the runner writes up
        return batch(call("write_file", path="greet.py", content="def hello():\n    return 'hi'\n"))

    t0 = time.monotonic()
    result, _ = run_with(small_repo, [two_ctrl_c_then_a_batch, "never played"])
    assert result.status is RunStatus.CANCELLED and time.monotonic() - t0 < 60
    time.sleep(1.5)  # a graph thread left running would write now
    assert not (small_repo / "greet.py").exists()
    written = json.loads((result.run_dir / "result.json").read_text())
    assert written["status"] == "cancelled" and written["metadata"]["diff"] == ""


def test_a_second_run_on_the_same_repo_is_refused(small_repo: Path) -> None:
    held = RepoLock.acquire(small_repo, "run-a")
    try:
        result, models = run_with(small_repo, ["never played"])
    finally:
        held.release()
    assert result.status is RunStatus.ERROR and result.reason.startswith("repo_locked:")
    assert f"pid {os.getpid()}" in result.reason and "run-a" in result.reason
    assert models["actor"].calls == [] and not result.run_dir.exists()


def test_the_lock_is_released_at_the_end_and_never_stale(small_repo: Path, tmp_path: Path) -> None:
    result, _ = run_with(small_repo, ["Nothing to do."])
    assert result.status is not RunStatus.RUNNING and not result.reason.startswith("repo_locked")
    RepoLock.acquire(small_repo, "after").release()  # the finished run released it
    # a process that died holding the lock leaves the file, not the lock
    script = (f"import sys, os, pathlib; sys.path.insert(0, {str(ROOT)!r})\n"
              "from codur.engine.lock import RepoLock\n"
              f"RepoLock.acquire(pathlib.Path({str(small_repo)!r}), 'crashed')\nos._exit(9)\n")
    assert subprocess.run([sys.executable, "-c", script], check=False).returncode == 9
    assert "crashed" in (small_repo / ".codur" / "run.lock").read_text()
    RepoLock.acquire(small_repo, "next").release()


def test_another_process_holding_the_lock_is_named(small_repo: Path) -> None:
    script = (f"import sys, time, pathlib; sys.path.insert(0, {str(ROOT)!r})\n"
              "from codur.engine.lock import RepoLock\n"
              f"RepoLock.acquire(pathlib.Path({str(small_repo)!r}), 'other')\nprint('locked', flush=True)\n"
              "time.sleep(30)\n")
    other = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "locked"
        with pytest.raises(RepoLocked, match=f"pid {other.pid}, run other"):
            RepoLock.acquire(small_repo, "mine")
    finally:
        other.kill()
        other.wait()
    RepoLock.acquire(small_repo, "mine").release()


def test_a_dry_run_takes_no_lock(small_repo: Path) -> None:
    held = RepoLock.acquire(small_repo, "run-a")
    try:
        models = {"actor": ScriptedChatModel(replies=["x"])}
        result = run(RunRequest(task=TASK, repo=small_repo, dry_run=True), models=StaticModelProvider(models),
                     config=CodurConfig(critic=False, repair=False))
    finally:
        held.release()
    assert not result.reason.startswith("repo_locked")
