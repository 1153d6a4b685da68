"""``codur repair``: fix the failing tests of a repository with mutation search, no model."""

from __future__ import annotations

import shlex
from pathlib import Path

import typer
from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table

from codur.repair.engine import RepairResult, repair
from codur.repair.mutants import PAIR_BUDGET


def _fail(console: Console, message: str) -> typer.Exit:
    typer.echo(f"codur repair: {message}", err=True)
    return typer.Exit(2)


def _report(console: Console, result: RepairResult, dry_run: bool) -> None:
    if result.failing_tests:
        console.print(f"[bold]Failing tests[/bold] ({len(result.failing_tests)})")
        for test in result.failing_tests[:20]:
            console.print(f"  {test}", highlight=False)
    if result.suspicious:
        table = Table(title="Suspicious lines", title_justify="left")
        table.add_column("file:line")
        table.add_column("score", justify="right")
        for file, line, score in result.suspicious[:10]:
            table.add_row(f"{file}:{line}", f"{score:.3f}")
        console.print(table)
    if result.diff:
        console.print(Syntax(result.diff, "diff", theme="ansi_dark", background_color="default"))
    colour = "green" if result.status == "patched" else "yellow"
    console.print(f"[{colour}]{result.status}[/{colour}]: {result.patch_description or result.message}",
                  highlight=False)
    if result.status == "patched" and dry_run:
        console.print("dry run: the repository was not changed")
    if result.stopped and result.stopped != "found":
        console.print(f"search stopped: {result.stopped}", highlight=False)
    pairs = f" ({result.pairs} pairs, budget {result.pair_budget})" if result.pair_budget else ""
    console.print(f"{result.mutants_tried} mutants tried{pairs} in {result.elapsed_s:.1f} s", highlight=False)


def repair_command(
    repo: Path = typer.Option(Path("."), "--repo", help="repository to repair"),
    test: str | None = typer.Option(None, "--test-cmd", "--test",
                                    help="test command, default: the setting test_command, else the repo's "
                                         "interpreter -m pytest"),
    dry_run: bool = typer.Option(False, "--dry-run", help="print the patch without writing it"),
    workers: int = typer.Option(4, "--workers", help="parallel workers"),
    mutant_timeout: float = typer.Option(20.0, "--mutant-timeout", help="seconds per test run"),
    max_mutants: int = typer.Option(400, "--max-mutants", help="mutants to try at most"),
    max_pairs: int = typer.Option(PAIR_BUDGET, "--max-pairs",
                                  help="second-order mutants (edits on the same or adjacent lines) at most"),
    time_budget: float = typer.Option(300.0, "--time-budget", help="seconds for the whole search"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="print every mutant tried"),
) -> None:
    """Make the failing tests pass with a single-edit patch found by mutation search.

    Exit status: 0 when patched, 1 when no patch was found (or the search was
    cancelled), 2 on bad input, 130 on Ctrl-C. Without a patch, the output says why the search
    stopped: "budget" (time or mutant budget spent), "exhausted" (every mutant tried) or
    "cancelled".
    """
    console = Console()
    if not repo.exists():
        raise _fail(console, f"repository path does not exist: {repo}")
    if not repo.is_dir():
        raise _fail(console, f"repository path is not a directory: {repo}")
    if workers < 1 or max_mutants < 1 or max_pairs < 0 or mutant_timeout <= 0 or time_budget <= 0:
        raise _fail(console, "--workers and --max-mutants must be >= 1, --max-pairs >= 0, timeouts > 0")
    from codur.config import ConfigError, load_config
    from codur.testing.command import resolve

    try:
        test_cmd = shlex.split(test) if test is not None else load_config(repo).test_command
        command = resolve(repo, test_cmd)
    except ValueError as exc:  # ConfigError and TestCommandError too
        where = "" if isinstance(exc, ConfigError) else "--test-cmd: " if test is not None else "test_command: "
        raise _fail(console, f"{where}{exc}") from None

    tried = 0

    def on_event(event: dict) -> None:
        nonlocal tried
        if event["event_type"] == "repair.mutant":
            tried += 1
            status.update(f"mutants tried: {tried}")
            if verbose:
                console.print(f"  {event['result']:<9} {event['file']}:{event['line']} "
                              f"{event['description']}", highlight=False)
        elif event["event_type"] == "repair.localized":
            status.update(f"{len(event['failing_tests'])} failing tests; searching")

    try:
        with console.status("running the tests with coverage") as status:
            result = repair(repo, test_cmd=command, workers=workers,
                            mutant_timeout_s=mutant_timeout, max_mutants=max_mutants, max_pairs=max_pairs,
                            time_budget_s=time_budget, apply=not dry_run, on_event=on_event)
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/yellow]: the repository was not changed")
        raise typer.Exit(130) from None
    _report(console, result, dry_run)
    raise typer.Exit(0 if result.status == "patched" else 1)
