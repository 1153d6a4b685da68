"""The ``codur`` command (Typer + Rich).

    codur TASK [--repo PATH]        the main job (short for ``codur run TASK``; a task of one
                                    word must be given as ``codur run WORD``)
    codur repair [--repo PATH]      mutation repair, no model
    codur batch TASKS --out RESULTS many tasks over many repos (a process pool, or Ray)
    codur rlm QUESTION --context F  recursive language model over a long input
    codur tools [--task-type T]     the tool registry
    codur runs / show ID / undo [ID] / config   run history, undo, effective settings
    codur trust [PATH]              let a repo's own codur.toml choose endpoint, key and sandbox
    codur graph                     the compiled graph as Mermaid
    codur --version

Start-up is light: this module imports Typer and Rich only; the engines (LangGraph,
langchain, pydantic-settings) are imported inside the command that needs them, and the
subcommands beside their engines are loaded only when invoked (:class:`LazyGroup`), so
``codur --help`` answers in a fraction of a second (bench/startup).

Exit codes: 0 success or a dry run; 1 the run ended without success; 2 bad input (one line
naming the option, environment variable or path); 130 Ctrl-C (the run ``cancelled``).
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import os
import signal
import sys
from typing import Any

import typer
from typer.core import TyperGroup

from codur.commands.run import run_command

# Subcommands of this package; each module exposes one Typer command function,
# imported when the command runs (the help lists them from this table).
SUBCOMMANDS = {
    "repair": ("codur.commands.repair", "repair_command", "Repair failing tests by mutation search, with no model."),
    "batch": ("codur.commands.batch", "batch_command",
              "Run many tasks (a JSON Lines file) over many repos, locally or on Ray; results line by line."),
    "rlm": ("codur.commands.rlm", "rlm_command",
            "Answer a question over a long input with a recursive language model."),
    "tools": ("codur.commands.tools", "tools_command", "List the tool registry."),
    "runs": ("codur.commands.history", "runs_command", "List the repo's past runs, newest first."),
    "show": ("codur.commands.history", "show_command", "Show a run's trace as a tree, then its diff."),
    "undo": ("codur.commands.history", "undo_command", "Put back the files of the last (or the named) run."),
    "config": ("codur.commands.config", "config_command", "Show every effective setting and where it came from."),
    "trust": ("codur.commands.config", "trust_command",
              "Let the repo's own config file choose the endpoint, key and sandbox settings."),
}


class _Listed(typer.core.TyperCommand):
    """A lazy command as the help shows it: name and one line, nothing imported."""


class LazyGroup(TyperGroup):
    """The root group: the :data:`SUBCOMMANDS` are imported when invoked, not to list them."""

    _listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        return [*names, *(n for n in SUBCOMMANDS if n not in names)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in SUBCOMMANDS:
            return found
        module, attr, help_text = SUBCOMMANDS[cmd_name]
        if self._listing:
            return _Listed(name=cmd_name, help=help_text, callback=None)
        try:
            func = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):
            return None  # that engine is not installed in this build
        single = typer.Typer(rich_markup_mode="rich", add_completion=False, context_settings=CONTEXT)
        single.command(cmd_name, help=help_text)(func)
        command = typer.main.get_command(single)
        self.commands[cmd_name] = command
        return command

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


#: ``-h`` is ``--help``, for every command (a subcommand's context inherits it).
CONTEXT = {"help_option_names": ["-h", "--help"]}


def _no_flag_placeholder() -> None:
    """A flag's help shows no ``<bool>`` placeholder: a flag takes no value (Typer shows one for
    every option's type; a flag's is left out here, once, for every command)."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich
    if getattr(shown, "codur", False):
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag else shown(self, ctx)

    display_type_rich.codur = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_no_flag_placeholder()

app = typer.Typer(
    name="codur", cls=LazyGroup, add_completion=False, no_args_is_help=True, rich_markup_mode="rich",
    context_settings=CONTEXT,
    help="codur: a coding agent for Python repositories. [bold]codur TASK --repo PATH[/bold] runs the main job.",
)


def _version(value: bool) -> None:
    if value:
        from codur import __version__

        typer.echo(f"codur {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """codur: a coding agent for Python repositories.

    [bold]codur TASK --repo PATH[/bold] runs the main job (the same as [bold]codur run TASK[/bold]).
    """


app.command("run")(run_command)


@app.command("graph")
def graph_command() -> None:
    """Print the compiled LangGraph graph as Mermaid."""
    from codur import build_graph

    typer.echo(build_graph().get_graph().draw_mermaid())


def command_names() -> list[str]:
    """Every command the app has (its own and the lazy ones)."""
    group = typer.main.get_command(app)
    return sorted(group.list_commands(typer.Context(group)))  # type: ignore[attr-defined]


def route(args: list[str]) -> list[str]:
    """The arguments Typer gets: ``codur "fix the bug" ...`` becomes ``codur run "fix the bug" ...``.

    Raises:
        SystemExit: code 2 when the first argument is a single word that is no command
            (``codur runs`` would otherwise start a run), with the nearest commands named.
    """
    if not args or args[0] in ("--help", "-h", "--version"):
        return args
    names = command_names()
    first = args[0]
    if first in names:
        return args
    if not first.startswith("-") and len(first.split()) == 1:
        near = difflib.get_close_matches(first, names, n=3, cutoff=0.5)
        hint = f" (did you mean {' or '.join(near)}?)" if near else ""
        sys.stderr.write(f"codur: unknown command '{first}'{hint}; to run a task, quote it: codur run \"{first}\"\n")
        raise SystemExit(2)
    return ["run", *args]


def _exit_now(signum, frame) -> None:  # noqa: ARG001 - signal handler signature
    """A Ctrl-C once the command has returned, in the interpreter's exit handlers: exit 130 at once,
    no traceback (the output is flushed first)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(130)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: ``codur TASK ...`` is ``codur run TASK ...``. A Ctrl-C at any moment
    exits 130 without a traceback: in the command (its own handling), and after it, in the
    interpreter's exit handlers (:func:`_exit_now`; ``KeyboardInterrupt`` never reported as
    unraisable either)."""
    args = route(list(sys.argv[1:] if argv is None else argv))
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 is printed as its bytes
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="surrogateescape")
    interrupted = []

    def on_sigint(signum, frame):  # noqa: ARG001 - signal handler signature
        interrupted.append(True)
        raise KeyboardInterrupt

    # Ctrl-C outside a run (start-up, option parsing, the repair command's set-up) ends with
    # 130, not with click's "Aborted!" and 1. Left alone when SIGINT is ignored (nohup, &).
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.default_int_handler:
        signal.signal(signal.SIGINT, on_sigint)
    default_hook = sys.unraisablehook

    def unraisable(report) -> None:  # a Ctrl-C Python could not raise: no traceback, the exit says 130
        if not isinstance(report.exc_value, KeyboardInterrupt):
            default_hook(report)

    sys.unraisablehook = unraisable
    try:
        app(args=args, prog_name="codur")
    except KeyboardInterrupt:  # before click's own handling starts
        from codur.commands.run import exit_if_held

        exit_if_held(130)
        raise SystemExit(130) from None
    except SystemExit as exc:
        # the KeyboardInterrupt may have been swallowed where Python cannot raise it (a weakref
        # callback during an import reports it as "ignored"): the command went on, yet the user
        # pressed Ctrl-C, so the exit status still says so
        code = 130 if interrupted and exc.code in (0, 1, None) else exc.code
        if code == 130:  # cancelled: a thread left in a model call must not hold the exit
            from codur.commands.run import exit_if_held

            exit_if_held(130)
        raise SystemExit(code) from None
    finally:
        # the command is over; what follows is the interpreter's exit (atexit callbacks, joining
        # threads, finalizers), where a Ctrl-C would print a traceback: it ends the process at once
        if previous is signal.default_int_handler:
            signal.signal(signal.SIGINT, _exit_now)

