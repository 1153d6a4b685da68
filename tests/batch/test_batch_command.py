"""``codur batch`` for real: codur processes on copies of examples/, mutation search only (no model)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FIX = "make the failing tests pass"


@pytest.fixture(autouse=True)
def _one_repair_worker(monkeypatch):
    """One candidate-testing worker per run: the batch's own workers share two cores."""
    monkeypatch.setenv("CODUR_REPAIR_WORKERS", "1")


def write_tasks(path: Path, rows: list[dict | str]) -> Path:
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))
    return path


def fix_task(n: int, example: str = "invoice") -> dict:
    return {"id": f"t{n}", "repo": str(EXAMPLES / example), "task": FIX, "fixers": ["mutation"]}


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def processes_under(folder: Path) -> list[int]:
    """Pids of the processes whose working directory is ``folder`` or below it."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and Path(os.readlink(entry / "cwd")).is_relative_to(folder):
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def codur(*args: str) -> list[str]:
    return [sys.executable, "-m", "codur._entry", *args]


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def batch(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(codur("batch", *args), cwd=ROOT, env=env(), capture_output=True, text=True, timeout=600)


def test_six_tasks_killed_after_three_and_restarted_run_only_the_rest(tmp_path):
    tasks = write_tasks(tmp_path / "tasks.jsonl",
                        [fix_task(n, "paginate" if n in (2, 5) else "invoice") for n in range(6)])
    out = tmp_path / "results.jsonl"
    first = subprocess.Popen(codur("batch", str(tasks), "--out", str(out), "--workers", "2", "--json"),
                             cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and first.poll() is None:
        if out.exists() and len(records(out)) >= 3:
            break
        time.sleep(0.2)
    first.send_signal(signal.SIGKILL)
    first.wait()
    deadline = time.monotonic() + 10
    while processes_under(tmp_path / "results-work") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_under(tmp_path / "results-work") == []  # the task processes died with the batch
    before = records(out)
    assert len(before) in (3, 4, 5), before  # a kill loses only the tasks in flight, never a written line
    events = [json.loads(line) for line in first.stdout.read().splitlines()]
    in_flight = {e["id"] for e in events if e["event_type"] == "task.started"} - {r["id"] for r in before}

    second = batch(str(tasks), "--out", str(out), "--workers", "2", "--json")
    assert second.returncode == 0, second.stderr
    events = [json.loads(line) for line in second.stdout.splitlines()]
    started = {e["id"] for e in events if e["event_type"] == "task.started"}
    assert started == {f"t{n}" for n in range(6)} - {r["id"] for r in before}
    assert in_flight <= started
    after = records(out)
    assert sorted(r["id"] for r in after) == [f"t{n}" for n in range(6)]
    for record in after:
        assert (record["status"], record["solved"], record["fixer"]) == ("success", True, "mutation search")
        assert record["diff"].startswith("--- a/") and record["worker"]
        copy = Path(record["workcopy"])
        assert copy.parent == tmp_path / "results-work" and copy.name == record["id"]
        assert (copy / ".codur" / "runs" / record["run_id"] / "trace.jsonl").is_file()
    assert "if quantity > BULK_THRESHOLD:" in (EXAMPLES / "invoice" / "billing.py").read_text()  # copies only
    summary = events[-1]
    assert summary["event_type"] == "batch.finished"
    assert (summary["skipped"], summary["ran"], summary["solved"]) == (len(before), 6 - len(before), 6)


def test_a_bad_line_is_named_and_skipped_and_the_batch_exits_1(tmp_path):
    tasks = write_tasks(tmp_path / "tasks.jsonl", [
        {"id": "gone", "repo": str(tmp_path / "missing"), "task": FIX},
        "{not json",
        {"id": "no-task", "repo": "x"},
    ])
    out = tmp_path / "results.jsonl"
    done = batch(str(tasks), "--out", str(out), "--workers", "1")
    assert done.returncode == 1
    assert f"{tasks}:2: skipped: not JSON" in done.stderr
    assert f"{tasks}:3: skipped: task: Field required" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    [record] = records(out)  # the valid line ran: its repo is missing, so its result is an error
    assert (record["id"], record["status"], record["solved"]) == ("gone", "error", False)
    assert "does not exist" in record["reason"]
    assert "status error" in done.stdout and "stopped by" in done.stdout  # the summary table


def test_caps_stop_new_tasks_and_let_the_running_one_finish(tmp_path):
    rows = [{"id": f"m{n}", "repo": str(tmp_path / "missing"), "task": FIX} for n in range(3)]
    tasks = write_tasks(tmp_path / "tasks.jsonl", rows)
    out = tmp_path / "results.jsonl"
    done = batch(str(tasks), "--out", str(out), "--workers", "1", "--max-total-time", "0.5", "--json")
    assert done.returncode == 1
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["stopped"].startswith("max_total_time: ")
    assert (summary["ran"], summary["not_started"]) == (1, 2)  # m0 was running when the cap came: it finished
    assert [r["id"] for r in records(out)] == ["m0"]

    out.write_text(json.dumps({"id": "m0", "status": "failed", "solved": False, "tokens": 900, "cost_usd": 0.02})
                   + "\n")  # an earlier run of the batch spent 900 tokens
    done = batch(str(tasks), "--out", str(out), "--max-total-tokens", "500", "--json")
    assert done.returncode == 1
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["stopped"] == "max_total_tokens: 900 tokens >= 500"
    assert (summary["skipped"], summary["ran"], summary["not_started"]) == (1, 0, 2)
    done = batch(str(tasks), "--out", str(out), "--max-total-cost", "0.01")
    assert done.returncode == 1 and "max_total_cost: USD 0.0200 >= 0.01" in done.stdout


def test_ctrl_c_stops_the_tasks_in_flight_exits_130_and_stores_nothing_for_them(tmp_path):
    tasks = write_tasks(tmp_path / "tasks.jsonl", [fix_task(0), fix_task(1)])
    out, work = tmp_path / "results.jsonl", tmp_path / "results-work"
    proc = subprocess.Popen(codur("batch", str(tasks), "--out", str(out), "--workers", "2"),
                            cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # not nohup's SIG_IGN
    deadline = time.monotonic() + 60
    while len(processes_under(work)) < 2 and time.monotonic() < deadline:  # both task processes started
        time.sleep(0.1)
    assert len(processes_under(work)) >= 2
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert not out.exists() or records(out) == []
    assert processes_under(work) == []


def test_readmes_batch_command_with_a_relative_out_puts_every_copy_where_its_result_says(tmp_path):
    import shutil

    shutil.copytree(EXAMPLES / "invoice", tmp_path / "examples" / "invoice")
    write_tasks(tmp_path / "tasks.jsonl", [{"id": "invoice", "repo": "examples/invoice", "task": FIX,
                                            "fixers": ["mutation"]}])
    done = subprocess.run(codur("batch", "tasks.jsonl", "--out", "results.jsonl"), cwd=tmp_path, env=env(),
                          capture_output=True, text=True, timeout=600)  # README's command, as written
    assert done.returncode == 0, done.stderr
    [record] = records(tmp_path / "results.jsonl")
    assert record["status"] == "success"
    copy = Path(record["workcopy"])
    assert copy.is_absolute() and copy == tmp_path / "results-work" / "invoice"
    assert (copy / ".codur" / "runs" / record["run_id"] / "trace.jsonl").is_file()
    assert not (tmp_path / "results-work" / "results-work").exists()
