"""``codur batch`` with the setting database_url: the results go to PostgreSQL, and a second
batch of the same name resumes from them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_batch_keeps_its_results_in_postgres_and_resumes_from_them(database_url: str, tmp_path: Path):
    from codur.storage.postgres import PostgresResults
    from codur.storage.schema import connect

    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": f"t{n}", "repo": str(ROOT / "examples" / "invoice"),
                                         "task": "make the failing tests pass", "fixers": ["mutation"]}) + "\n"
                             for n in range(2)))
    out = tmp_path / "nightly.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CODUR_DATABASE_URL": database_url, "CODUR_REPAIR_WORKERS": "1"}

    def batch() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "codur._entry", "batch", str(tasks), "--out", str(out),
                               "--workers", "2", "--json"], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=600)

    first = batch()
    assert first.returncode == 0, first.stderr
    assert not out.exists()  # the database holds the results, not the file
    with connect(database_url) as db:  # each task's run row names its batch and task
        rows = db.execute("SELECT run_id, batch, task_id, status FROM codur_runs ORDER BY task_id").fetchall()
    assert [(r["batch"], r["task_id"], r["status"]) for r in rows] == [("nightly", "t0", "success"),
                                                                      ("nightly", "t1", "success")]
    back = subprocess.run([sys.executable, "-m", "codur._entry", "runs", "--database", "--batch", "nightly",
                           "--json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert back.returncode == 0, back.stderr
    exported = [json.loads(line) for line in back.stdout.splitlines()]  # the lines RESULTS.jsonl would hold
    assert sorted(r["id"] for r in exported) == ["t0", "t1"]
    assert {r["run_id"] for r in exported} == {r["run_id"] for r in rows}
    table = subprocess.run([sys.executable, "-m", "codur._entry", "batch", str(tasks), "--out", str(out)],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert table.returncode == 0, table.stderr
    assert "batch 'nightly'" in table.stdout and str(out) not in table.stdout  # names only what exists
    missing = subprocess.run([sys.executable, "-m", "codur._entry", "runs", "--database", "--batch", "other"],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and "no results of that batch" in missing.stderr
    store = PostgresResults(database_url, batch="nightly")
    try:
        assert store.done_ids() == {"t0", "t1"}
        assert {r["status"] for r in store.records()} == {"success"}
        assert all("+" in r["diff"] for r in store.records())
    finally:
        store.close()
    again = batch()
    assert again.returncode == 0, again.stderr
    events = [json.loads(line) for line in again.stdout.splitlines() if line.startswith("{")]
    assert not [e for e in events if e.get("event_type") == "task.started"]  # both already done: resumed
