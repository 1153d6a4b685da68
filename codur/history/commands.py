"""``codur runs``, ``codur show``, ``codur undo`` and ``codur config``.

    codur runs [--repo PATH] [--limit N] [--json]   past runs, newest first
    codur runs --database                           the runs kept in PostgreSQL (database_url)
    codur runs --database --batch NAME [--json]     a batch's results kept there (--json: its JSON lines)
    codur show RUN_ID [--repo PATH]                 a run's trace as a tree, then its diff
    codur undo [RUN_ID] [--repo PATH] [--force]     put back the files of the last (or named) run
    codur config [--repo PATH]                      every effective setting, its origin and trust level
    codur trust [PATH] [--revoke]                   let the repo's own config file set every setting

Exit codes: 0 done; 1 refused (undo: files changed since the run, already undone, nothing
to undo); 2 bad input (no such repo or run, an ambiguous id, a setting that does not parse).
Only Typer and Rich at import time: ``codur --help`` stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

console = Console(highlight=False)
err = Console(stderr=True, highlight=False, soft_wrap=True)  # an error is one line, however long

REPO = typer.Option(Path("."), "--repo", "-r", help="The repository (default: current directory).")


def _fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"codur: {message}", markup=False)
    return typer.Exit(code)


def _repo(repo: Path) -> Path:
    if not repo.is_dir():
        raise _fail(f"repository path does not exist or is not a folder: {repo}")
    return repo.resolve()


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
            raise _fail("--batch reads a batch's results from the database: add --database")
        _batch_results(repo, batch, as_json)
        return
    if database:
        runs = _database_runs(repo, limit)
        where = "the database"
    else:
        runs = list_runs(_repo(repo))[:limit]
        where = str(repo)
    if as_json:
        typer.echo(json.dumps([r.as_dict() for r in runs], indent=1))
        return
    if not runs:
        kept = "runs are recorded there once database_url is set" if database else \
            "a run keeps its folder in .codur/runs/"
        console.print(f"[dim]no runs in {where} ({kept})[/]")
        return
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
        raise _fail(str(exc)) from None
    if not records:
        raise _fail(f"--batch {batch}: no results of that batch in the database (a batch is named by the stem "
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
        raise _fail(str(exc)) from None
    if not url:
        raise _fail("--database: no database set (CODUR_DATABASE_URL=postgresql://..., or [storage] url in "
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
        raise _fail(str(exc)) from None


def show_command(
    run_id: str = typer.Argument(..., help="A run id, or a unique prefix of one (codur runs lists them)."),
    repo: Path = REPO,
) -> None:
    """Print a run's trace as a tree (turns, nodes, tool and model calls), its answer, then its diff."""
    console.soft_wrap = not console.is_terminal  # piped: whole lines, never wrapped at 80 columns
    from codur.history.runs import RunNotFound, find_run, read_events
    from codur.history.trace import trace_tree

    try:
        run = find_run(_repo(repo), run_id)
    except RunNotFound as exc:
        raise _fail(str(exc)) from None
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

    root = _repo(repo)
    try:
        run = find_run(root, run_id) if run_id else next(
            (r for r in list_runs(root) if _journalled(r.run_dir) and not _reverted_at_end(r.run_dir)), None)
    except RunNotFound as exc:
        raise _fail(str(exc)) from None
    if run is None:
        raise _fail(f"no run changed files in {repo}: nothing to undo", 1)
    try:
        report = undo(root, run, force=force)
    except UndoRefused as exc:
        raise _fail(str(exc), 1) from None
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


def config_command(
    repo: Path = REPO,
    max_turns: int | None = typer.Option(None, help="As codur run's flag: Plan→Act→Verify cycles at most."),
    timeout: float | None = typer.Option(None, help="As codur run's flag: wall-clock limit, seconds."),
    model: str | None = typer.Option(None, "--model", help="As codur run's flag: model name at the endpoint."),
    base_url: str | None = typer.Option(None, "--base-url", metavar="URL", help="As codur run's flag: the endpoint."),
    api_key_env: str | None = typer.Option(None, "--api-key-env", metavar="VAR",
                                           help="As codur run's flag: the variable holding the API key."),
    check: bool = typer.Option(False, "--check", help="Also try what the settings name: connect to the database "
                               "(create codur's tables) and ask the model endpoint for its models; exit 2 when "
                               "one cannot be used."),
) -> None:
    """Print every effective setting for the repo, where it came from (flag, env, file, default) and
    its level (``user``, ``repo``, ``repo (trusted)``, ``default``; a repo file's value that is
    not taken: ``ignored (untrusted repo)``), then the test command it gives (``tests:
    .venv/bin/python -m pytest (.venv)``). ``CODUR_*`` variables that are no setting and the repo
    file's ignored keys are named first. With ``--check``, the database and the model endpoint
    are tried and what they hold is said."""
    console.soft_wrap = not console.is_terminal  # piped: whole lines, never wrapped at 80 columns
    from codur.config import CodurConfig, ConfigError, load_config
    from codur.config.origins import ignored_settings, origins, unknown_variables
    from codur.config.sources import find_config_files
    from codur.testing.command import resolve as resolve_tests

    root = _repo(repo)
    given = {"max_turns": max_turns, "timeout_s": timeout, "model": model, "base_url": base_url,
             "api_key_env": api_key_env}
    flags = {k: v for k, v in given.items() if v is not None}
    files = find_config_files(root)
    for warning in [*unknown_variables(CodurConfig), *ignored_settings(CodurConfig, files)]:
        console.print(Text(f"warning: {warning}", style="yellow"))
    try:
        config = load_config(root, **flags)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    where = " over ".join(f"{f.path} ({f.level})" for f in files) or "no config file"
    table = Table(title=f"codur config · {where}", title_justify="left")
    table.add_column("setting", no_wrap=True)
    table.add_column("value", overflow="fold")
    table.add_column("from", overflow="fold")  # a user file's full path folds, never crops
    table.add_column("level", overflow="fold")
    for item in origins(config, flags, files):
        style = "dim" if item.origin == "default" else "yellow" if item.level.startswith("ignored") else ""
        table.add_row(Text(item.key), Text(item.value), Text(item.origin), Text(item.level),
                      style=style)  # no markup from values
    console.print(table)
    console.print(Text(f"tests: {resolve_tests(root, config.test_command).describe(root)}"))
    if check:
        _check(config)


def _check(config: object) -> None:
    """``codur config --check``: the database (connected, tables created, what it holds) and each
    model endpoint (one request); exit 2 after saying which failed."""
    from codur.llm.preflight import EndpointUnusable, check_endpoint, endpoints
    from codur.storage import StorageError, postgres_module, redact

    failed = False
    url = config.database()  # type: ignore[attr-defined]
    if url:
        try:
            found = postgres_module().check(url)
        except StorageError as exc:
            err.print(f"codur: check: {exc}", markup=False)
            failed = True
        else:
            console.print(Text(
                f"database {redact(url)}: PostgreSQL {found['server']}, database {found['database']} as "
                f"{found['user']}; tables ready: {', '.join(found['tables'])}; {found['runs']} runs "
                f"({found['resumable']} resumable), {found['batches']} batches ({found['batch_results']} "
                f"results), {found['sessions']} sessions"))
    else:
        console.print(Text("database: none set (runs are kept in each repo's .codur/)"))
    from codur.config import ConfigError

    try:
        named = endpoints(config)
    except ConfigError as exc:  # no model named and the endpoint's list cannot be read
        err.print(f"codur: check: {exc}", markup=False)
        named, failed = [], True
    for endpoint in named:
        try:
            check_endpoint(endpoint)
        except EndpointUnusable as exc:
            err.print(f"codur: check: model endpoint {exc}", markup=False)
            failed = True
        else:
            console.print(Text(f"model endpoint {endpoint.base_url}: answers (key from {endpoint.api_key_env})"))
    if failed:
        raise typer.Exit(2)


def trust_command(
    repo: Path = typer.Argument(Path("."), help="The repository whose codur.toml / [tool.codur] to trust."),
    revoke: bool = typer.Option(False, "--revoke", help="Forget the repo: its file's user-only settings are "
                                "ignored again."),
) -> None:
    """Trust the repo's own config file as it is now: its endpoint, key variable, sandbox and other
    user-only settings (:data:`codur.config.trust.USER_ONLY`) apply. Recorded with the file's
    SHA-256 in the user's config folder (``trusted.json``); a changed file is not trusted until
    trusted again. Exit 2: no such folder, no config file in it, or a file that does not parse."""
    from codur.config import CodurConfig, ConfigError
    from codur.config.sources import ConfigFileError, find_config_files
    from codur.config.trust import trust, trust_store_path

    root = _repo(repo)
    own = next((f for f in find_config_files(root) if f.kind != "user"), None)
    if revoke:
        trust(root, None)
        console.print(Text(f"{root}: not trusted; its config file's user-only settings are ignored"), soft_wrap=True)
        return
    if own is None:
        raise _fail(f"{root} has no codur.toml and no [tool.codur] table in pyproject.toml: nothing to trust")
    try:
        own.check(CodurConfig)
    except (ConfigFileError, ConfigError) as exc:
        raise _fail(str(exc)) from None
    keys = own.ignored(CodurConfig) if not own.trusted else []
    entry = trust(root, own.path)
    assert entry is not None
    console.print(Text(f"trusted {own.path} (sha256 {entry['sha256'][:12]}…, in {trust_store_path()})"
                       + (f"; now taken from it: {', '.join(keys)}" if keys else "")
                       + "; a change to the file needs `codur trust` again"), soft_wrap=True)


COMMANDS = {
    "runs": (runs_command, "List the repo's past runs, newest first."),
    "show": (show_command, "Show a run's trace as a tree, then its diff."),
    "undo": (undo_command, "Put back the files of the last (or the named) run."),
    "config": (config_command, "Show every effective setting and where it came from."),
    "trust": (trust_command, "Let the repo's own config file choose the endpoint, key and sandbox settings."),
}


def register(app: typer.Typer) -> dict[str, tuple[str, str, str]]:
    """Add ``runs``, ``show``, ``undo`` and ``config`` to ``app``.

    Returns:
        The commands as codur.cli's SUBCOMMANDS entries (name -> (module, function, help)),
        so ``codur.cli.main`` routes ``codur runs`` to the command and not to ``codur run runs``.
    """
    for name, (func, help_text) in COMMANDS.items():
        app.command(name, help=help_text)(func)
    return {name: (__name__, func.__name__, help_text) for name, (func, help_text) in COMMANDS.items()}
