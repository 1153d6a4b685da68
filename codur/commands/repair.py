"""``codur repair``: the main job with only the mutation fixer and no model.

One front door: the command is ``codur "make the failing tests pass"`` with the setting
``fixers = ["mutation"]`` (and the search's size from its options), so it has what every run
has — the repo's ``codur.toml``, the repo lock, the change journal, a run folder with its
trace, diff and result, ``codur undo``, and a failed run's edits put back. What it prints is
its own: the failing tests, the suspicious lines, the patch, the mutants tried.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from codur.config import CodurConfig
from codur.core.contracts import PatchStatus

TASK = "make the failing tests pass"
_DEFAULTS = CodurConfig.model_fields


def _fail(message: str) -> typer.Exit:
    typer.echo(f"codur repair: {message}", err=True)
    return typer.Exit(2)


class _Seen:
    """What the run's events said, for the report (failing tests, suspicious lines, mutants)."""

    def __init__(self, console: Console, verbose: bool) -> None:
        self.console, self.verbose = console, verbose
        self.failing: list[str] = []
        self.suspicious: list[Any] = []
        self.tried = 0
        self.search_s = 0.0
        self.search_status = ""
        self.label = ""
        self.first_exit: int | None = -1  # the first test run's exit code (-1: none yet)
        self.status: Any = None

    def __call__(self, event: dict) -> None:
        kind = event.get("event_type")
        if kind == "tests.run" and self.first_exit == -1:
            self.first_exit = event.get("exit_code")
        elif kind == "patch.found":
            self.label = str(event.get("label") or "")
        elif kind == "patch.localized":
            self.failing, self.suspicious = list(event.get("failing_tests") or []), list(event.get("suspicious") or [])
            if self.status is not None:
                self.status.update(f"{len(self.failing)} failing tests; searching")
        elif kind == "patch.candidate":
            self.tried += 1
            if self.status is not None:
                self.status.update(f"mutants tried: {self.tried}")
            if self.verbose:
                self.console.print(f"  {event.get('result', ''):<9} {event.get('label', '')}", highlight=False)
        elif kind == "patch.done":
            self.search_s, self.search_status = float(event.get("elapsed_s") or 0.0), str(event.get("status", ""))


def stopped(result: Any) -> str:
    """Why the search ended without a patch, as the run's result says it
    (``metadata.stop["search"]``, :class:`codur.patch.contracts.SearchEnd`): "budget",
    "cancelled" or "exhausted", then the figures in words; "" when no search stopped the run."""
    search = (result.metadata.stop or {}).get("search") or {}
    return f"{search['stopped']}: {search['message']}" if search else ""


def _outcome(console: Console, seen: _Seen, result: Any, patched: bool) -> None:
    """The line saying what the search found: the patch (and, when it was held back by an
    anti-pattern, what to review), no failing tests, or why nothing was found."""
    if patched:
        console.print(f"[green]patched[/green]: {seen.label or result.output_text}", highlight=False)
        if result.reason == "plausible":  # held back (codur.validate.antipatterns): said, with what to review
            console.print(f"[yellow]{result.output_text.splitlines()[0]}[/yellow]", highlight=False)
    elif seen.first_exit == 0:
        console.print("[yellow]no_failing_tests[/yellow]: the tests pass; nothing to repair", highlight=False)
    else:
        why = seen.search_status if seen.search_status not in ("", PatchStatus.PATCHED) else result.reason
        console.print(f"[yellow]{why}[/yellow]: {result.output_text or result.reason}", highlight=False)


def _report(console: Console, seen: _Seen, result: Any, diff: str, dry_run: bool) -> bool:
    """Print the report; True when a patch was found (written, or shown by a dry run)."""
    if seen.failing:
        console.print(f"[bold]Failing tests[/bold] ({len(seen.failing)})")
        for test in seen.failing[:20]:
            console.print(f"  {test}", highlight=False)
    if seen.suspicious:
        table = Table(title="Suspicious lines", title_justify="left")
        table.add_column("file:line")
        table.add_column("score", justify="right")
        for file, line, score in seen.suspicious[:10]:
            table.add_row(f"{file}:{line}", f"{float(score):.3f}")
        console.print(table)
    if diff:  # as codur run prints it: long lines folded with a marker on a terminal, whole when piped
        from codur.ui.summary import print_diff

        print_diff(console, diff)
    patched = bool(diff) and (dry_run or result.ok)
    _outcome(console, seen, result, patched)
    if patched and dry_run:
        console.print("dry run: the repository was not changed")
    elif not patched and seen.first_exit != 0 and stopped(result):
        console.print(f"search stopped: {stopped(result)}", highlight=False)
    verdict = f"{result.status.value} / {result.reason}" if result.reason == "plausible" else result.status.value
    run = (f"run {result.run_id} (dry run)" if dry_run else f"run {result.run_id} ({verdict}; "
           + ("`codur undo` puts it back)" if patched else f"{result.reason})"))
    console.print(f"{seen.tried} mutants tried in {seen.search_s:.1f} s · {run}", highlight=False)
    return patched


def as_dry_run(result: Any, found: bool) -> Any:
    """``result`` of a ``--dry-run`` (its patch proposed, never written) with status ``dry_run``
    and the reason ``dry run: patch found, not written`` or ``dry run: no patch found``; its
    ``result.json`` is rewritten (atomically) to say so. A result without a run folder is only
    returned changed."""
    from codur.core.files import atomic_write_bytes
    from codur.engine.contracts import RunStatus

    why = "dry run: patch found, not written" if found else "dry run: no patch found"
    changed = result.model_copy(update={"status": RunStatus.DRY_RUN, "reason": why})
    run_dir = result.metadata.run_dir
    if run_dir is not None and (Path(run_dir) / "result.json").is_file():
        atomic_write_bytes(Path(run_dir) / "result.json", changed.model_dump_json(indent=2).encode())
    return changed


def _console() -> Console:
    """The command's console; piped: whole lines, no wrapping at 80 columns."""
    console = Console()
    if not console.is_terminal:
        console.soft_wrap = True
    return console


def _check_repo(repo: Path) -> None:
    """Raises typer.Exit (status 2, the problem said) when ``repo`` is not an existing directory."""
    if not repo.exists():
        raise _fail(f"repository path does not exist: {repo}")
    if not repo.is_dir():
        raise _fail(f"repository path is not a directory: {repo}")


def repair_command(
    repo: Path = typer.Option(Path("."), "--repo", help="repository to repair"),
    test: str | None = typer.Option(None, "--test-cmd", "--test",
                                    help="test command, default: the setting test_command, else the repo's "
                                         "interpreter -m pytest"),
    dry_run: bool = typer.Option(False, "--dry-run", help="print the patch without writing it"),
    workers: int = typer.Option(_DEFAULTS["repair_workers"].default, "--workers", help="parallel workers"),
    mutant_timeout: float = typer.Option(_DEFAULTS["mutant_timeout_s"].default, "--mutant-timeout",
                                         help="seconds per test stage of a mutant, at most"),
    max_mutants: int = typer.Option(_DEFAULTS["max_mutants"].default, "--max-mutants",
                                    help="mutants to try in the first tier"),
    tiers: int = typer.Option(_DEFAULTS["mutant_tiers"].default, "--tiers",
                              help="tiers: with time left, tier k tries up to k x --max-mutants; 1: no more"),
    max_pairs: int = typer.Option(_DEFAULTS["max_pairs"].default, "--max-pairs",
                                  help="second-order mutants (edits on the same or adjacent lines, or two "
                                       "statements of one function) at most"),
    time_budget: float = typer.Option(_DEFAULTS["patch_time_budget_s"].default, "--time-budget",
                                      help="seconds for the whole search"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="print every mutant tried"),
) -> None:
    """Make the failing tests pass with a patch found by mutation search, with no model.

    The main job with only the mutation fixer: the patch is verified by the whole suite,
    written through the change journal and kept in a run folder (`codur runs`, `codur undo`).
    Exit status: 0 when patched (or, with --dry-run, when a patch was found), 1 when no patch
    was found, 2 on bad input, 130 on Ctrl-C.
    """
    console = _console()
    _check_repo(repo)
    from pydantic import ValidationError

    from codur.config import ConfigError, load_config
    from codur.engine.contracts import RunRequest, RunStatus
    from codur.engine.runner import run

    try:
        config = load_config(repo, test_command=test, fixers=["mutation"], critic=False, repair_workers=workers,
                             mutant_timeout_s=mutant_timeout, max_mutants=max_mutants, max_pairs=max_pairs,
                             mutant_tiers=tiers, patch_time_budget_s=time_budget)
    except (ConfigError, ValidationError) as exc:
        raise _fail(str(exc).replace("repair_workers", "--workers")) from None
    proposed: list[str] = []

    def propose_only(tool: str, args: dict) -> bool:
        """--dry-run: the patch the run would write is kept here and refused."""
        if tool == "apply_patch":
            proposed.append(str(args.get("patch", "")))
        return False

    if dry_run:
        config = config.model_copy(update={"tool_policy": "confirm_writes"})
    cancel = threading.Event()
    request = RunRequest(task=TASK, repo=repo, cancel_event=cancel,
                         timeout_s=max(config.timeout_s, time_budget + 120.0))
    seen = _Seen(console, verbose)
    try:
        with console.status("running the tests") as status:
            seen.status = status
            result = run(request, config=config, on_event=seen, confirm=propose_only if dry_run else None)
    except KeyboardInterrupt:
        cancel.set()
        console.print("[yellow]interrupted[/yellow]: the repository was not changed")
        raise typer.Exit(130) from None
    if result.status is RunStatus.CANCELLED:
        console.print("[yellow]interrupted[/yellow]: the repository was not changed")
        raise typer.Exit(130)
    if dry_run:  # the run refused its own write: a dry run, not a failure (codur runs lists it so)
        result = as_dry_run(result, found=bool(proposed))
    found = _report(console, seen, result, proposed[-1] if dry_run and proposed else result.diff, dry_run)
    raise typer.Exit(0 if found else 1)
