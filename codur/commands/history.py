"""``codur runs``, ``codur show`` and ``codur undo``: the repo's run history.

    codur runs [--repo PATH] [--limit N] [--json]   past runs, newest first
    codur runs --database                           the runs kept in PostgreSQL (database_url)
    codur runs --database --batch NAME [--json]     a batch's results kept there (--json: its JSON lines)
    codur show RUN_ID [--repo PATH]                 a run's trace as a tree, then its diff
    codur undo [RUN_ID] [--repo PATH] [--force]     put back the files of the last (or named) run

Exit codes: 0 done; 1 refused (undo: files changed since the run, already undone, nothing
to undo); 2 bad input (no such repo or run, an ambiguous id, a setting that does not parse).
Only Typer and Rich at import time: ``codur --help`` stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from codur.commands.common import REPO, console, fail, repo_dir


def runs_command(
    repo: Path = REPO,
    limit: int = typer.Option(20, "--limit", "-n", min=1, help="Show at most this many runs."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list instead of a table."),
    database: bool = typer.Option(False, "--database", help="List the runs kept in the PostgreSQL database "
                                  "(the setting database_url: CODUR_DATABASE_URL or \\[storage] url), every repo "
                                  "and machine, instead of the repo's folder."),
    batch: str | None = typer.Option(None, "--batch", metavar="NAME",
                                     help="With --database: the results of the batch NAME (the stem of its "
                                          "--out file), one line per task; with --json the JSON lines a "
                                          "results file would hold."),
) -> None:
    """List the repo's past runs, newest first: id, start (UTC), status, files, tokens, cost, seconds, task."""
    console.soft_wrap = not console.is_terminal  # piped: whole lines, never wrapped at 80 columns
    from codur.history.runs import list_runs

    if batch is not None:
        if not database:
            raise fail("--batch reads a batch's results from the database: add --database")
        _batch_results(repo, batch, as_json)
        return
    if database:
        runs = _database_runs(repo, limit)
        where = "the database"
    else:
        runs = list_runs(repo_dir(repo))[:limit]
        where = str(repo)
    if as_json:
        typer.echo(json.dumps([r.as_dict() for r in runs], indent=1))
        return
    if not runs:
        kept = "runs are recorded there once database_url is set" if database else \
            "a run keeps its folder in .codur/runs/"
        console.print(f"[dim]no runs in {where} ({kept})[/]")
        return
    _print_runs(runs, where, database=database)


def _print_runs(runs: list, where: str, *, database: bool) -> None:
    """The runs as a table on a terminal (columns giving way under 100 columns), else a line per
    run, fields two spaces apart; ``database``: with each run's host and whether it can resume."""
    colours = {"success": "green", "interrupted": "yellow", "running": "cyan", "unfinished": "yellow",
               "dry_run": "cyan", "undone": "yellow"}
    rows = [[r.run_id, r.started.strftime("%m-%d %H:%M") if r.started else "?", r.status, str(len(r.files_changed)),
             "-" if r.tokens is None else str(r.tokens), "-" if r.cost_usd is None else f"{r.cost_usd:.4f}",
             "-" if r.seconds is None else f"{r.seconds:.1f}"] for r in runs]
    names = ["run id", "started", "status", "files", "tokens", "cost $", "s"]
    if database:  # where each run is: the machine and repo, and whether --resume can go on from it
        names += ["host", "resume"]
        for r, row in zip(runs, rows, strict=True):
            row += [str(r.extra.get("host", "")), "yes" if r.extra.get("resumable") else "-"]
    if not console.is_terminal:  # piped: a line per run, fields two spaces apart, never wrapped or padded
        typer.echo(f"codur runs · {where}")
        typer.echo("  ".join([*names, "task"]))
        for r, row in zip(runs, rows, strict=True):
            typer.echo("  ".join([*row, f"{r.task}  [{r.extra['repo']}]" if database else r.task]))
        return
    # under 100 columns, "started" (the run id begins with the same time) and "files" give way, so
    # the task keeps about 30 columns and wraps rather than being cropped
    shown = [i for i in range(len(names)) if console.width >= 100 or names[i] not in ("started", "files", "host")]
    table = Table(title=f"codur runs · {where}", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                  show_edge=False, collapse_padding=True)
    for i in shown:
        width = max(len(names[i]), *(len(row[i]) for row in rows))
        table.add_column(names[i], no_wrap=True, min_width=width, justify="right" if 2 < i < 7 else "left")
    table.add_column("task", overflow="fold", max_width=60)  # the column that gives way: wrapped, never cropped
    for r, row in zip(runs, rows, strict=True):
        row[2] = f"[{colours.get(r.status, 'red')}]{r.status}[/]"
        task = f"{r.task}  [{r.extra['repo']}]" if database else r.task
        table.add_row(*(row[i] for i in shown), Text(task))
    console.print(table)


def _batch_results(repo: Path, batch: str, as_json: bool) -> None:
    """Print the records the database keeps for ``batch`` (exit 2 when there are none)."""
    from codur.storage import StorageError, postgres_module

    url = _database_url(repo)
    try:
        store = postgres_module().PostgresResults(url, batch=batch)
        try:
            records = store.records()
        finally:
            store.close()
    except StorageError as exc:
        raise fail(str(exc)) from None
    if not records:
        raise fail(f"--batch {batch}: no results of that batch in the database (a batch is named by the stem "
                    "of its --out file)")
    if as_json:  # the lines RESULTS.jsonl would hold: `... --json > RESULTS.jsonl` exports them
        for record in records:
            typer.echo(json.dumps(record, ensure_ascii=False, default=str))
        return
    table = Table(title=f"codur batch {batch} · the database", title_justify="left", box=box.SIMPLE_HEAD,
                  pad_edge=False, show_edge=False, collapse_padding=True)
    for name in ("task id", "status", "fixer", "tokens", "cost $", "s", "run id"):
        table.add_column(name, no_wrap=True, justify="right" if name in ("tokens", "cost $", "s") else "left")
    for r in {str(r["id"]): r for r in records}.values():  # the last record of each task counts
        table.add_row(str(r["id"]), str(r.get("status", "")), str(r.get("fixer") or r.get("reason") or "-"),
                      str(r.get("tokens", 0)), f"{float(r.get('cost_usd') or 0):.4f}",
                      f"{float(r.get('duration_s') or 0):.1f}", str(r.get("run_id") or "-"))
    console.print(table)


def _database_url(repo: Path) -> str:
    """The database the settings for ``repo`` name (exit 2 when none is set or a setting does not parse)."""
    from codur.config import ConfigError, load_config

    try:
        url = load_config(repo if repo.is_dir() else None).database()
    except ConfigError as exc:
        raise fail(str(exc)) from None
    if not url:
        raise fail("--database: no database set (CODUR_DATABASE_URL=postgresql://..., or [storage] url in "
                    "codur.toml)")
    return url


def _database_runs(repo: Path, limit: int) -> list:
    """The runs of the database the settings for ``repo`` name (exit 2 when none is set or it
    cannot be read)."""
    from codur.history.runs import list_database_runs
    from codur.storage import StorageError

    url = _database_url(repo)
    try:
        return list_database_runs(url, limit)
    except StorageError as exc:
        raise fail(str(exc)) from None


def show_command(
    run_id: str = typer.Argument(..., help="A run id, or a unique prefix of one (codur runs lists them)."),
    repo: Path = REPO,
) -> None:
    """Print a run's trace as a tree (turns, nodes, tool and model calls), its answer, then its diff."""
    console.soft_wrap = not console.is_terminal  # piped: whole lines, never wrapped at 80 columns
    from codur.history.runs import RunNotFound, find_run, read_events
    from codur.history.trace import trace_tree

    try:
        run = find_run(repo_dir(repo), run_id)
    except RunNotFound as exc:
        raise fail(str(exc)) from None
    console.print(trace_tree(run, read_events(run.run_dir / "trace.jsonl")))
    try:
        diff = (run.run_dir / "diff.patch").read_text(encoding="utf-8", errors="replace")
    except OSError:
        diff = ""
    if run.answer:  # a question's answer (a fix's summary): the run's last words, whole
        console.print(Text(f"{'summary' if diff else 'answer'}: {run.answer}"))
    if diff and console.is_terminal:
        from codur.ui.summary import print_diff

        print_diff(console, diff)  # folded with a continuation marker, never into fake diff lines
    elif diff:
        typer.echo(diff, nl=False)  # piped: the patch as is (git apply, patch -R)
    else:
        console.print("[dim](no changes)[/]")


def undo_command(
    run_id: str | None = typer.Argument(None, help="The run to undo (id or unique prefix); default: the "
                                        "last run that changed files and kept them."),
    repo: Path = REPO,
    force: bool = typer.Option(False, "--force", help="Put files back even if they changed after the run."),
) -> None:
    """Put back the files a run changed: originals restored, created files deleted, deleted ones back."""
    console.soft_wrap = not console.is_terminal  # piped: whole lines, never wrapped at 80 columns
    from codur.history.runs import RunNotFound, find_run, list_runs
    from codur.history.undo import UndoRefused, undo

    root = repo_dir(repo)
    try:
        run = find_run(root, run_id) if run_id else next(
            (r for r in list_runs(root) if _journalled(r.run_dir) and not _reverted_at_end(r.run_dir)), None)
    except RunNotFound as exc:
        raise fail(str(exc)) from None
    if run is None:
        raise fail(f"no run changed files in {repo}: nothing to undo", 1)
    try:
        report = undo(root, run, force=force)
    except UndoRefused as exc:
        raise fail(str(exc), 1) from None
    for rel in report.restored:
        console.print(f"restored {rel}", markup=False)
    for rel in report.deleted:
        console.print(f"deleted {rel} (the run created it)", markup=False)
    forced = f"; overwrote changes made since: {', '.join(report.overwritten)}" if report.overwritten else ""
    console.print(f"undid run {run.run_id}: {len(report.restored) + len(report.deleted)} files{forced}",
                  markup=False)
    if report.backup is not None:
        console.print(f"the overwritten files, as they were just before: {report.backup}", markup=False,
                      soft_wrap=True)


def _reverted_at_end(run_dir: Path) -> bool:
    """True for a run whose edits were put back when it failed (it left no change to undo)."""
    from codur.tools.journal import UNDONE

    try:
        return "run_ended" in json.loads((run_dir / UNDONE).read_text())
    except (OSError, json.JSONDecodeError, TypeError):
        return False


def _journalled(run_dir: Path) -> bool:
    try:
        return bool(json.loads((run_dir / "originals" / "index.json").read_text()))
    except (OSError, json.JSONDecodeError):
        return False
