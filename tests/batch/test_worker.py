"""``run_task`` in this process: a task's ``settings`` reach the run's settings."""

from __future__ import annotations

from pathlib import Path

from codur.batch.tasks import BatchTask
from codur.batch.worker import run_task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_tasks_settings_are_the_runs_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("CODUR_REPAIR_WORKERS", "1")
    task = BatchTask(id="inv", repo=str(EXAMPLES / "invoice"), task="make the failing tests pass",
                     fixers=["mutation"], settings={"token_budget": 4321})
    record = run_task(task, tmp_path)
    assert record["metadata"]["limits"]["token_budget"] == 4321
    assert record["status"] == "success" and record["fixer"] == "mutation search"


def test_a_setting_that_does_not_parse_is_an_error_record_naming_it(tmp_path):
    task = BatchTask(id="inv", repo=str(EXAMPLES / "invoice"), task="make the failing tests pass",
                     fixers=["mutation"], settings={"token_budget": "lots"})
    record = run_task(task, tmp_path)
    assert record["status"] == "error"
    assert record["reason"].startswith("task_setup_failed:") and "token_budget" in record["reason"]
