"""Session memory and batch results in a real PostgreSQL server (tests/storage/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from codur.batch.results import open_results
from codur.memory import SessionEntry, recall
from codur.storage import StorageError, redact

pytest.importorskip("psycopg", reason="psycopg is not installed (pip install codur[postgres])")

from codur.storage.postgres import PostgresResults, PostgresSessionStore  # noqa: E402
from codur.storage.schema import connect  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_session_memory_round_trip_across_store_instances(database_url: str):
    writer = PostgresSessionStore(database_url)
    writer.append("s1", SessionEntry(run_id="r1", task="fix the bulk discount", status="running", ts=1.0))
    writer.append("s1", SessionEntry(run_id="r1", task="fix the bulk discount", status="success",
                                     reason="verified", files_changed=["billing.py"], diff_summary="+ >=", ts=2.0))
    writer.append("s1", SessionEntry(run_id="r2", task="also negative quantities", status="running", ts=3.0))
    writer.append("s2", SessionEntry(run_id="x", task="another session", status="failed", ts=1.5))
    reader = PostgresSessionStore(database_url)  # another process, another machine: the same rows
    history = reader.history("s1")
    assert [(e.run_id, e.status) for e in history] == [("r1", "running"), ("r1", "success"), ("r2", "running")]
    assert history[1].files_changed == ["billing.py"] and history[1].diff_summary == "+ >="
    assert [e.status for e in reader.history("s1", limit=2)] == ["success", "running"]  # the latest, oldest first
    assert [(e.run_id, e.status) for e in recall(reader, "s1", current_run="r2")] == [("r1", "success")]
    assert [e.task for e in reader.history("s2")] == ["another session"]
    assert reader.history("nobody") == []


def test_batch_results_survive_a_killed_batch_and_are_read_on_a_second_connection(database_url: str, tmp_path):
    first = open_results(tmp_path / "nightly.jsonl", database_url)
    assert isinstance(first, PostgresResults) and first.batch == "nightly"
    first.append({"id": "t1", "status": "success", "tokens": 120, "diff": "--- a/x\n+++ b/x\n"})
    first.append({"id": "t2", "status": "failed", "nested": {"b": 1, "a": [1, 2]}})
    # the batch is killed here: its connection is never closed. A restart opens its own.
    second = PostgresResults(database_url, "nightly")
    assert second.done_ids() == {"t1", "t2"}
    second.append({"id": "t3", "status": "success"})
    assert [r["id"] for r in first.records()] == ["t1", "t2", "t3"]  # each append committed at once
    assert second.records()[1] == {"id": "t2", "status": "failed", "nested": {"b": 1, "a": [1, 2]}}
    assert list(second.records()[1]["nested"]) == ["b", "a"]  # kept as written
    assert PostgresResults(database_url, "other").done_ids() == set()  # batches are kept apart
    with pytest.raises(ValueError, match="id"):
        second.append({"status": "solved"})
    first.close()
    second.close()
    second.append({"id": "t1", "status": "success"})  # --redo: a closed store reconnects, the new line is kept
    assert [r["id"] for r in PostgresResults(database_url, "nightly").records()] == ["t1", "t2", "t3", "t1"]


def test_an_unreachable_database_is_one_line_without_the_password(tmp_path):
    url = "postgresql://codur:s3cret@127.0.0.1:1/nowhere"
    with pytest.raises(StorageError) as caught:
        connect(url)
    message = str(caught.value)
    assert "s3cret" not in message and redact(url) in message and "\n" not in message
    assert redact(url) == "postgresql://codur:***@127.0.0.1:1/nowhere"
    with pytest.raises(StorageError, match="cannot connect"):
        PostgresSessionStore(url).history("s")


def test_a_killed_batch_keeps_every_committed_result(database_url: str, tmp_path):
    """A process appending results is killed (SIGKILL, no close): a restart sees each one it wrote."""
    script = tmp_path / "batch.py"
    script.write_text(
        "import sys, time\n"
        "from codur.storage.postgres import PostgresResults\n"
        "store = PostgresResults(sys.argv[1], 'killed')\n"
        "for i in range(3):\n"
        "    store.append({'id': f't{i}', 'status': 'success'})\n"
        "print('written', flush=True)\n"
        "time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, str(script), database_url], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout.readline().strip() == "written"
    finally:
        proc.kill()
        proc.wait(10)
    restarted = PostgresResults(database_url, "killed")
    assert restarted.done_ids() == {"t0", "t1", "t2"}
    restarted.close()
