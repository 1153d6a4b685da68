"""The ``codur`` command (Typer + Rich).

    codur TASK [--repo PATH]        the main job (short for ``codur run TASK``)
    codur repair [--repo PATH]      mutation repair, no model
    codur rlm QUESTION --context F  recursive language model over a long input
    codur tools [--task-type T]     the tool registry

Exit codes: 0 success; 1 the run ended without success; 2 bad input (one line naming the
option, environment variable or path); 130 Ctrl-C.
"""

from __future__ import annotations

import importlib
import signal
import sys
from pathlib import Path

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.syntax import Syntax

app = typer.Typer(
    name="codur", add_completion=False, no_args_is_help=True, rich_markup_mode="rich",
    help="codur: a coding agent for Python repositories. [bold]codur TASK --repo PATH[/bold] runs the main job.",
)
console = Console(highlight=False)
err = Console(stderr=True, highlight=False, soft_wrap=True)  # an error is one line, however long

# RunRequest fields -> the option that sets them, for one-line errors
OPTIONS = {"max_turns": "--max-turns", "timeout_s": "--timeout", "token_budget": "token budget"}

# Subcommands that live beside their engines; each module exposes one Typer command function.
SUBCOMMANDS = {
    "repair": ("codur.repair.command", "repair_command", "Repair failing tests by mutation search, with no model."),
    "rlm": ("codur.rlm.command", "rlm_command", "Answer a question over a long input with a recursive language model."),
    "tools": ("codur.tools.command", "tools_command", "List the tool registry."),
}


@app.callback()
def _root() -> None:
    """codur: a coding agent for Python repositories.

    [bold]codur TASK --repo PATH[/bold] runs the main job (the same as [bold]codur run TASK[/bold]).
    """


def _print_event(event: dict, verbose: bool) -> None:
    kind = event.get("event_type")
    if kind == "engine.state":
        turn = f" turn {event['turn']}" if event.get("turn") else ""
        console.print(f"[bold cyan]▶ {event['node']}[/] [dim]({event['state']}{turn})[/]")
    elif kind == "tool.call":
        args = ", ".join(f"{k}={str(v)[:40]!r}" for k, v in event.get("args", {}).items()
                         if k not in ("content", "new", "old"))
        mark = "[green]ok[/]" if event.get("ok") else "[red]error[/]"
        console.print(f"   ↳ {event['tool']}({args}) {mark} [dim]{event.get('duration_s', 0):.2f}s[/]")
        if not event.get("ok") or verbose:
            console.print(f"     [dim]{event.get('output', '')[:200]}[/]")
    elif kind == "agent.reply" and (verbose or event.get("errors")):
        for e in event.get("errors", []):
            console.print(f"   [yellow]! {e[:200]}[/]")
        if verbose and not event.get("tool_calls"):
            console.print(f"   [dim]{event.get('text', '')[:300]}[/]")
    elif (kind or "").startswith("patch."):
        _print_patch_event(event, verbose)


def _print_patch_event(event: dict, verbose: bool) -> None:
    """One short line per step of the candidate-patch pipeline (every candidate with -v)."""
    kind = event["event_type"]
    if kind == "patch.localized":
        top = ", ".join(f"{f}:{line}" for f, line, _ in event.get("suspicious", [])[:3])
        console.print(f"   ↳ localized: {len(event.get('failing_tests', []))} failing tests; suspicious {top} "
                      f"[dim]{event.get('elapsed_s', 0):.1f}s[/]")
    elif kind == "patch.phase":
        what = (event.get("skipped") or ", ".join(event.get("functions", []))
                or f"{event.get('candidates', 0)} candidates")
        console.print(f"   ↳ {event['phase']}: {what}")
    elif kind == "patch.sample":
        console.print(f"     sample {event['k']} ({event['variant']}, T={event['temperature']}): {event['outcome']} "
                      f"[dim]{event['tokens']} tokens, {event['seconds']:.1f}s[/]")
    elif kind == "patch.candidate" and (verbose or event.get("source") != "mutation"):
        fixed = f", fixed {event['fixed']}" if event.get("fixed") else ""
        console.print(f"     [dim]{event['label'][:90]}: {event['result']}{fixed}[/]")
    elif kind == "patch.found":
        console.print(f"   ↳ [green]plausible patch[/]: {event['label']}")
    elif kind == "patch.done":
        tried = ", ".join(f"{n} {s}" for s, n in event.get("tried", {}).items() if n) or "nothing"
        console.print(f"   ↳ patch search {event['status']}: tried {tried} [dim]{event.get('elapsed_s', 0):.1f}s[/]")


@app.command("run")
def run_command(
    task: str = typer.Argument(..., help="What to do, e.g. \"make the failing tests pass\"."),
    repo: Path = typer.Option(Path("."), "--repo", "-r", help="The repository (default: current directory)."),
    max_turns: int | None = typer.Option(None, help="Plan→Act→Verify cycles at most."),
    timeout: float | None = typer.Option(None, help="Wall-clock limit, seconds."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Log the agent's prompt; call no agent."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show the model's replies and tool output."),
) -> None:
    """Run the main job: plan, edit, verify, retry or repair; print status, reason and diff."""
    from codur.config import ConfigError, load_config
    from codur.engine.contracts import RunRequest, RunStatus
    from codur.engine.runner import run
    from codur.llm.local import LocalModelUnavailable

    try:
        request = RunRequest(task=task, repo=repo, max_turns=max_turns, timeout_s=timeout, dry_run=dry_run)
        config = load_config()
    except ValidationError as exc:
        first = exc.errors()[0]
        option = OPTIONS.get(str(first["loc"][0]) if first["loc"] else "")
        err.print(f"codur: {option + ': ' if option else ''}{first['msg'].removeprefix('Value error, ')}")
        raise typer.Exit(2) from None
    except ConfigError as exc:
        err.print(f"codur: {exc}")
        raise typer.Exit(2) from None
    console.print(f"[bold]codur[/] · {request.task} · [dim]{request.repo}[/]")
    try:
        result = run(request, config=config, on_event=lambda e: _print_event(e, verbose))
    except LocalModelUnavailable as exc:
        err.print(f"codur: {exc}")
        raise typer.Exit(2) from None
    color = "green" if result.ok else "red"
    console.print(f"\n[bold {color}]status: {result.status.value}[/]  reason: {result.reason}")
    if result.summary:
        console.print(f"summary: {result.summary[:500]}")
    if result.diff:
        console.print(Syntax(result.diff, "diff", theme="ansi_dark", background_color="default"))
    else:
        console.print("[dim](no changes)[/]")
    console.print(f"[dim]turns {result.turns} · model calls {result.llm_calls} · tokens {result.tokens} · "
                  f"cost ${result.cost_usd:.4f} · {result.duration_s:.1f}s · trace {result.run_dir}/trace.jsonl[/]")
    if result.status is RunStatus.CANCELLED:
        raise typer.Exit(130)
    raise typer.Exit(0 if result.ok else 1)


def _register_subcommands() -> None:
    for name, (module, attr, help_text) in SUBCOMMANDS.items():
        try:
            func = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):
            continue  # that engine is not installed in this build
        app.command(name, help=help_text)(func)


_register_subcommands()


def main(argv: list[str] | None = None) -> None:
    """Console entry point: ``codur TASK ...`` is ``codur run TASK ...``."""
    args = list(sys.argv[1:] if argv is None else argv)
    commands = {"run", *SUBCOMMANDS}
    if args and args[0] not in commands and args[0] not in ("--help", "-h"):
        args.insert(0, "run")
    interrupted = []

    def on_sigint(signum, frame):  # noqa: ARG001 - signal handler signature
        interrupted.append(True)
        raise KeyboardInterrupt

    # Ctrl-C outside a run (start-up, option parsing, the repair command's set-up) ends with
    # 130, not with click's "Aborted!" and 1. Left alone when SIGINT is ignored (nohup, &).
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.default_int_handler:
        signal.signal(signal.SIGINT, on_sigint)
    try:
        app(args=args, prog_name="codur")
    except KeyboardInterrupt:  # before click's own handling starts
        raise SystemExit(130) from None
    except SystemExit as exc:
        if interrupted and exc.code in (1, None):
            raise SystemExit(130) from None
        raise
    finally:
        if previous is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous)


if __name__ == "__main__":
    main()
