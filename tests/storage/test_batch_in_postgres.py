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
