"""What ``codur batch`` shows on a terminal: the live figures, a line per task, the summary table."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from codur.batch.runner import BatchSummary, summarize
from codur.commands.batch import LiveView, summary_table


def _record(id_: str, solved: bool, tokens: int, cost: float, fixer: str = "") -> dict:
    return {"id": id_, "status": "success" if solved else "failed", "reason": "verified" if solved else "stuck",
            "solved": solved, "fixer": fixer, "tokens": tokens, "cost_usd": cost, "duration_s": 4.0}


def test_the_live_line_counts_done_running_queued_solved_tokens_cost_and_eta():
    out = io.StringIO()
    view = LiveView(Console(file=out, force_terminal=True, width=200))
    view({"event_type": "batch.started", "total": 4, "skipped": 1, "queued": 3, "workers": 2})
    view({"event_type": "task.started", "id": "a", "running": 1, "queued": 2})
    view({"event_type": "task.started", "id": "b", "running": 2, "queued": 1})
    view({"event_type": "task.finished", "record": _record("a", True, 1200, 0.0031, "model patch sample"),
          "running": 1, "queued": 1})
    task = view.progress.tasks[0]
    assert (task.completed, task.total) == (1, 3)
    stats = task.fields["stats"]
    assert stats.startswith("1/3 · run 1 · queue 1 · solved 1 · 1200 tok · USD 0.0031 · ETA ")
    assert ":" in stats.rsplit("ETA ", 1)[1]  # a figure once a task has finished
    view({"event_type": "batch.finished"})
    text = out.getvalue()
    assert "4 tasks · 1 already done · 3 to run · 2 workers" in text
    assert "a  success  model patch sample  4.0 s" in text


def test_the_summary_table_names_the_fixers_the_cost_and_the_cap():
    records = [_record("a", True, 100, 0.01, "mutation search"), _record("b", True, 300, 0.02, "agent"),
               _record("c", False, 50, 0.005), _record("c", True, 60, 0.006, "agent")]  # c redone: last counts
    summary = summarize(records, BatchSummary(total=4, ran=3, skipped=0, not_started=1,
                                              stopped="max_total_cost: USD 0.0360 >= 0.03"))
    assert (summary.solved, summary.by_fixer, summary.tokens) == (3, {"mutation search": 1, "agent": 2}, 460)
    out = io.StringIO()
    Console(file=out, width=120).print(summary_table(summary, Path("results.jsonl")))
    text = out.getvalue()
    for expected in ("3 of 3", "by agent", "by mutation search", "460", "USD 0.0360", "not started",
                     "max_total_cost: USD 0.0360 >= 0.03"):
        assert expected in text, expected


def test_at_80_columns_the_live_line_keeps_every_count_whole():
    view = LiveView(Console(file=io.StringIO(), force_terminal=True, width=80))
    view({"event_type": "batch.started", "total": 240, "skipped": 0, "queued": 240, "workers": 8})
    view({"event_type": "task.finished", "record": _record("a", True, 1234567, 12.3456, "agent"),
          "running": 8, "queued": 231})
    shown = io.StringIO()
    Console(file=shown, width=80, force_terminal=True, color_system=None).print(view.progress.get_renderable())
    view.progress.stop()
    line = shown.getvalue().splitlines()[0]
    assert "1/240 · run 8 · queue 231 · solved 1 · 1234567 tok · USD 12.3456 · ETA " in line
    assert "…" not in line and len(line.rstrip()) <= 80
