"""bench/trust: at least 20 tasks of our own over the six kinds, and its harness judges a run
by the hidden check (a change request beside an unrelated failing test, a plain fix, a resumed run)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "trust"


def load():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("trust_run", BENCH / "run.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def test_the_bench_has_twenty_tasks_of_every_kind():
    bench = load()
    tasks = bench.TASKS
    assert len(tasks) >= 20 and len({t.id for t in tasks}) == len(tasks)
    assert {t.kind for t in tasks} == {"change", "wrong_feature", "right_feature", "question", "plain_fix", "resume"}


def test_a_change_request_and_a_plain_fix_end_as_expected_with_no_false_success():
    bench = load()
    chosen = {t.id: t for t in bench.TASKS if t.id in ("c07_no_model", "f01_grades")}
    lines = [bench.run_task(task, "scripted", 120) for task in chosen.values()]
    assert all(line["as_expected"] and not line["false_success"] for line in lines), lines
    fix = next(line for line in lines if line["task"] == "f01_grades")
    assert fix["done"] and fix["llm_calls"] == 0
    assert "**0 false successes**" in bench.table(lines)


def test_issue_55s_cases_end_with_no_false_success():
    """A test that shares a word with the task, a test the task asks to change, one it asks to keep
    passing, one the user edited, refactor wordings with nothing checked, a critic's prose reply, a
    verdict of an edit a cancel put back before --resume: none of them is proof the task was done."""
    bench = load()
    lines = [bench.run_task(task, "scripted", 120) for task in bench.TASKS if task.id.startswith(("s0", "s1"))]
    assert len(lines) == 10
    assert not [line for line in lines if line["false_success"]], lines
