"""``codur batch TASKS.jsonl --out RESULTS.jsonl``: many codur runs, on this machine or on Ray.

The command reads the task file (a bad line is named with its number and skipped), calls
:func:`codur.batch.runner.run_batch` and shows its events: a live progress line on a terminal
(done/running/queued, solved, tokens, cost, ETA) and a line per finished task, then a summary
table; with ``--json`` one JSON object per event on stdout instead (``batch.finished`` last).

Exit codes: 0 every task has a result; 1 a task line was bad, a cap stopped the batch or a
task was lost (a restart runs what is missing); 2 bad input (no task file, a results file or
working folder that cannot be used, is a link or has one on the way, or that another batch holds;
a results file that is the task file or a shell's startup file; Ray missing or unreachable); 130 Ctrl-C (the tasks in
flight are killed and run again on restart).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn
from rich.table import Column, Table

from codur.core.events import Event
from codur.core.events.batch import TaskInvalid

if TYPE_CHECKING:
    from codur.batch.runner import BatchSummary


def _eta(remaining: int, finished: int, elapsed_s: float) -> str:
    if not finished or not remaining:
        return "–" if remaining else "0:00"
    left = int(remaining * elapsed_s / finished)
    return f"{left // 60}:{left % 60:02d}"


class LiveView:
    """Shows a batch's events with Rich: a progress bar with the running figures, a line per task."""

    def __init__(self, console: Console) -> None:
        self.console = console
        # the counts first and whole, the bar last taking what is left: at 80 columns the figures
        # fit and the bar shrinks, rather than the figures being cut
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.fields[stats]}", table_column=Column(no_wrap=True)),
                                 BarColumn(bar_width=None, table_column=Column(ratio=1)), console=console,
                                 expand=True, disable=not console.is_terminal)  # piped: the task lines, the table
        self.bar = self.progress.add_task("batch", total=0, stats="")
        self.started = time.monotonic()
        self.finished = self.solved = self.tokens = self.running = self.queued = 0
        self.cost = 0.0

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event["event_type"]
        self.running, self.queued = event.get("running", self.running), event.get("queued", self.queued)
        if kind == "batch.started":
            self.queued = event["queued"]
            self.progress.update(self.bar, total=event["queued"])
            self.console.print(f"codur batch · {event['total']} tasks · {event['skipped']} already done · "
                               f"{event['queued']} to run · {event['workers']} workers", highlight=False)
            self.progress.start()
        elif kind == "batch.model_server":
            said = (f"one embedded model server for the workers: {event['url']} · {event['slots']} slots"
                    if "url" in event else
                    f"[yellow]the embedded model server did not start[/yellow]: {event['error']}")
            self.console.print(said, highlight=False)
            return
        elif kind == "task.finished":
            record = event["record"]
            self.finished += 1
            self.solved += bool(record.get("solved"))
            self.tokens += int(record.get("tokens") or 0)
            self.cost += float(record.get("cost_usd") or 0)
            mark = "[green]✓[/green]" if record.get("solved") else "[yellow]✗[/yellow]"
            how = record.get("fixer") or record.get("reason") or ""
            self.console.print(f"{mark} {record['id']}  {record['status']}  {how}  "
                               f"{float(record.get('duration_s') or 0):.1f} s", highlight=False)
        elif kind == "task.lost":
            self.finished += 1
            self.console.print(f"[red]![/red] {event['id']} lost: {event['error']}", highlight=False)
        elif kind == "batch.stopped":
            self.console.print(f"[yellow]stopping[/yellow]: {event['reason']}; no new task starts", highlight=False)
        elif kind == "batch.finished":
            self.progress.stop()
            return
        remaining = self.running + self.queued
        eta = _eta(remaining, self.finished, time.monotonic() - self.started)
        total = int(self.progress.tasks[0].total or 0)
        stats = (f"{self.finished}/{total} · run {self.running} · queue {self.queued} · solved {self.solved} · "
                 f"{self.tokens} tok · USD {self.cost:.4f} · ETA {eta}")
        self.progress.update(self.bar, completed=self.finished, stats=stats)


def summary_table(summary: BatchSummary, where: str) -> Table:
    """The end-of-batch table: tasks, solved, by fixer and status, median time, tokens, cost, why it stopped.

    Args:
        summary: the batch's figures.
        where: where its results are (the results file, or the database batch and the command that reads it).
    """
    table = Table(title=f"batch results: {where}", title_justify="left", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    results = sum(summary.by_status.values())
    table.add_row("tasks", str(summary.total))
    table.add_row("ran now / already done", f"{summary.ran} / {summary.skipped}")
    table.add_row("solved", f"{summary.solved} of {results}")
    for fixer, count in sorted(summary.by_fixer.items()):
        table.add_row(f"  by {fixer}", str(count))
    for status, count in sorted(summary.by_status.items()):
        table.add_row(f"status {status}", str(count))
    table.add_row("median time", f"{summary.median_s:.1f} s")
    table.add_row("total tokens", str(summary.tokens))
    table.add_row("total cost", f"USD {summary.cost_usd:.4f}")
    table.add_row("elapsed", f"{summary.elapsed_s:.1f} s")
    if summary.lost:
        table.add_row("lost (run again on restart)", str(summary.lost))
    if summary.not_started:
        table.add_row("not started", str(summary.not_started))
    table.add_row("stopped by", summary.stopped or "– (every task ran)")
    return table


def _json_lines(event: Event) -> None:
    """One batch event as a JSON line: its record (:class:`codur.core.events.Event`) and ``ts`` last."""
    sys.stdout.write(json.dumps({**event, "ts": round(time.time(), 3)}, default=str) + "\n")
    sys.stdout.flush()


def batch_command(
    tasks_file: Path = typer.Argument(..., metavar="TASKS.jsonl",
                                      help="One task a line: {\"id\", \"repo\", \"task\", optional \"commit\", "
                                           "\"test_command\", \"fixers\", \"timeout_s\", \"max_turns\", "
                                           "\"settings\" (other codur settings)}."),
    out: Path = typer.Option(..., "--out", "-o", metavar="RESULTS.jsonl",
                             help="Results, one JSON line per finished task; tasks already in it are skipped."),
    workers: int | None = typer.Option(None, "--workers", "-w", min=1,
                                       help="Tasks run at once (default: half the cores, at least 1; with "
                                            "--ray auto or ray://, the cluster's CPUs)."),
    ray: str | None = typer.Option(None, "--ray", metavar="ADDRESS",
                                   help="Run each task as a Ray task: local (start Ray here), auto, or "
                                        "ray://HOST:PORT (needs codur[ray])."),
    ray_timeout: float = typer.Option(30.0, "--ray-timeout", min=1, metavar="SECONDS",
                                      help="How long to wait for the Ray connection before stopping with the "
                                           "cause (network, authentication, timeout)."),
    workdir: Path | None = typer.Option(None, "--workdir", metavar="DIR",
                                        help="Where the working copies go, DIR/<id> (default: next to --out, "
                                             "<RESULTS>-work)."),
    in_place: bool = typer.Option(False, "--in-place", help="Work on folder repos where they are, not on copies."),
    redo: bool = typer.Option(False, "--redo", help="Run the tasks that already have a result again."),
    max_total_tokens: int | None = typer.Option(None, "--max-total-tokens", min=0, metavar="TOKENS",
                                                help="Start no task once the results hold this many tokens."),
    max_total_cost: float | None = typer.Option(None, "--max-total-cost", min=0, metavar="USD",
                                                help="Start no task once the results cost this much, USD."),
    max_total_time: float | None = typer.Option(None, "--max-total-time", min=0, metavar="SECONDS",
                                                help="Start no task after this many seconds."),
    json_out: bool = typer.Option(False, "--json", help="One JSON object per event on stdout, the summary last."),
) -> None:
    """Run many codur tasks, each a normal run on its own working copy; results kept line by line."""
    from codur.batch.runner import BatchSettings, Caps, hold_batch_lock, run_batch

    console = Console(highlight=False)
    if not console.is_terminal:
        console.soft_wrap = True
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    out = _results_file(err, out, tasks_file)
    tasks, bad = _tasks(err, tasks_file, json_out=json_out)
    database, store = _results(err, tasks_file, out)
    view = _json_lines if json_out else LiveView(console)
    caps = Caps(max_total_tokens, max_total_cost, max_total_time)
    try:  # one batch at a time per results file: a second one would run every task again
        results_lock = hold_batch_lock(out.parent, f"{out.name}.lock", "--out")
    except (RuntimeError, OSError) as exc:
        store.close()
        err.print(f"codur batch: {exc}", markup=False)
        raise typer.Exit(2) from None
    try:
        settings = BatchSettings(workdir=workdir or out.parent / f"{out.stem}-work", workers=workers, caps=caps,
                                 ray=ray, ray_timeout=ray_timeout, in_place=in_place, redo=redo, batch=out.stem)
        summary = run_batch(tasks, store, settings, on_event=view)
    except (RuntimeError, OSError) as exc:  # OSError: the results file or the working copies' folder
        err.print(f"codur batch: {exc}", markup=False)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        err.print("codur batch: interrupted; the tasks in flight were stopped and run again on restart",
                  markup=False)
        raise typer.Exit(130) from None
    finally:
        store.close()
        results_lock.release()
        if isinstance(view, LiveView):
            view.progress.stop()  # the cursor comes back after an error or a Ctrl-C too
    if not json_out:
        where = (f"database, batch {out.stem!r} (codur runs --database --batch {out.stem} --json reads them)"
                 if database else str(out))  # the file is never written in database mode: not named
        console.print(summary_table(summary, where))
    if bad:
        err.print(f"codur batch: {len(bad)} task line(s) skipped", markup=False)
    raise typer.Exit(0 if summary.complete and not bad else 1)


def _results_file(err: Console, out: Path, tasks_file: Path) -> Path:
    """``out`` made absolute once checked (:func:`codur.batch.paths.check_results_file`: no link on
    the way, not the task file, not a shell's startup file); exit 2 naming why it is refused."""
    from codur.batch.paths import check_results_file

    try:
        return check_results_file(out, tasks_file)
    except (OSError, ValueError) as exc:
        err.print(f"codur batch: {exc}", markup=False)
        raise typer.Exit(2) from None


def _tasks(err: Console, tasks_file: Path, *, json_out: bool) -> tuple[list, list]:
    """(the tasks of ``tasks_file``, its bad lines), each bad line said on stderr (and, with
    ``json_out``, as a ``task.invalid`` event); exit 2 when the file cannot be read."""
    from codur.batch.tasks import read_tasks

    try:
        tasks, bad = read_tasks(tasks_file)
    except (OSError, UnicodeDecodeError) as exc:
        err.print(f"codur batch: cannot read the task file {tasks_file}: {exc}", markup=False)
        raise typer.Exit(2) from None
    for line in bad:
        err.print(f"codur batch: {tasks_file}:{line.line}: skipped: {line.message}", markup=False)
        if json_out:
            _json_lines(TaskInvalid(line=line.line, error=line.message))
    return tasks, bad


def _results(err: Console, tasks_file: Path, out: Path) -> tuple[str | None, Any]:
    """(the database URL or None, the results store): with the setting database_url the results go
    to PostgreSQL (:mod:`codur.storage`), else to ``out``; exit 2 when neither can be used."""
    from codur.batch.results import open_results
    from codur.config import ConfigError, load_config

    try:
        database = load_config(tasks_file.parent).database()
        return database, open_results(out, database)
    except (ConfigError, RuntimeError, OSError) as exc:  # RuntimeError: codur.storage.StorageError, no extra
        err.print(f"codur batch: {exc}", markup=False)
        raise typer.Exit(2) from None
