"""``codur run TASK``: the main job, with live progress and a summary.

Output modes: default (a line per event, a spinner on a terminal, the summary), ``--quiet``
(the summary only), ``--verbose`` (also the model's replies and tool output), ``--json``
(one JSON event per line on stdout, the trace's envelope, then ``run.result``; nothing else
on stdout). Safe modes: ``--read-only`` (no tool that writes or runs code is offered; a task
that needs an edit ends at once with the plan and a proposed diff, status ``success``, reason
``read_only_proposal``), ``--confirm`` (each write's diff is shown and answered y/n/a/q; refused
with exit 2 when stdin is no terminal), ``--dry-run``.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from contextlib import nullcontext, redirect_stdout
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

from codur.commands import model_absent
from codur.ui.progress import Progress, kind

# RunRequest fields -> the option that sets them, for one-line errors
OPTIONS = {"input": "task", "max_turns": "--max-turns", "timeout_s": "--timeout", "token_budget": "token budget",
           "session_id": "--session", "run_id": "--resume"}

#: Hook for tests and embedders: ``provide_models(config)`` returns the run's ModelProvider
#: (None: the models the config names). Tests set it to a StaticModelProvider of scripted models.
provide_models: Callable[[Any], Any] | None = None


def exit_if_held(code: int) -> None:
    """End the process now with ``code`` when a thread a cancel left behind (a model call that
    never answers) is still alive: the interpreter's exit would wait for it (a daemon thread too,
    when it belongs to a thread pool, which joins its workers at exit). The streams are flushed,
    then ``os._exit``. For the console entry point (:func:`codur.commands.app.main`), once the result is
    written (writes are atomic): an embedder's process is not ended. Returns otherwise."""
    main = threading.main_thread()
    if any(t.is_alive() and t is not main for t in threading.enumerate()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def stdin_is_terminal() -> bool:
    """Whether the user can answer ``--confirm``'s questions: stdin is a terminal. A stdin without
    a file descriptor (an embedder's stream, a test's) is taken as one: it is read directly."""
    try:
        return os.isatty(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):
        return True


def _fail(err: Console, message: str) -> typer.Exit:
    err.print(f"codur: {message}", highlight=False, markup=False)
    return typer.Exit(2)


def _resumed(err: Console, repo: Path, ref: str, task: str | None,
             session: str | None) -> tuple[str, str, str | None, dict[str, Any]]:
    """(full run id, task, session, saved settings) of the run ``ref`` names; exit 2 with one line
    when no run or several match. A task or session given now wins over the saved one."""
    from codur.config import ConfigError, load_config
    from codur.engine.checkpoints import ResumeError
    from codur.engine.resume import find_saved
    from codur.storage import StorageError

    if not repo.is_dir():
        raise _fail(err, f"--repo: repository path does not exist or is not a folder: {repo}")
    try:
        found = find_saved(repo.resolve(), ref, load_config(repo).database())
    except (ConfigError, ResumeError, StorageError) as exc:
        raise _fail(err, str(exc)) from None
    if not (task or found.task):
        raise _fail(err, f"--resume {ref}: the run {found.run_id} keeps no task: give it again, codur TASK --resume "
                         f"{found.run_id}")
    return found.run_id, task or found.task, session or found.session_id, found.settings


class JsonLines:
    """Writes each event as one JSON line (keys ``event_type``, ``run_id``, ``ts`` first), flushed."""

    def __init__(self, stream: Any, progress: Progress) -> None:
        self.stream, self.progress = stream, progress

    def __call__(self, event: dict[str, Any]) -> None:
        self.progress(event)  # quiet: only the tally
        body = {k: v for k, v in event.items() if k not in ("event", "event_type", "run_id", "ts")}
        self.write({"event_type": kind(event), "run_id": event.get("run_id") or self.progress.tally.run_id,
                    "ts": event.get("ts", round(time.time(), 3)), **body})

    def result(self, result: Any) -> None:
        """The last line: ``run.result`` with the RunResult's fields (its JSON form)."""
        fields = result.model_dump(mode="json")
        self.write({"event_type": "run.result", "run_id": fields.pop("run_id"), "ts": round(time.time(), 3),
                    **fields})

    def write(self, record: dict[str, Any]) -> None:
        self.stream.write(json.dumps(record, default=str) + "\n")
        self.stream.flush()


#: The options of ``codur run`` whose help takes more than a line.
TASK_ARGUMENT = typer.Argument(None, help="What to do, e.g. \"make the failing tests pass\" (with "
                               "--resume: taken from the run).")
DRY_RUN_OPTION = typer.Option(False, "--dry-run", help="Print the prompts the agent would get; start and call "
                              "no model, change nothing (status dry_run, exit 0).")
KEEP_FAILED_OPTION = typer.Option(False, "--keep-failed",
                                  help="Keep the edits of a run that does not succeed (default: they are "
                                  "reverted and kept in the run's attempt.patch).")
ALLOW_RISKY_OPTION = typer.Option(False, "--allow-risky-patches",
                                  help="Write a patch that adds a call or import the patch gate does not allow "
                                  "(network, processes, eval, a module off its allowlist) without asking.")
SESSION_OPTION = typer.Option(None, "--session", metavar="ID",
                              help="Session id: a follow-up run sees the session's earlier runs.")
RESUME_OPTION = typer.Option(None, "--resume", metavar="RUN_ID",
                             help="Resume this run (an id or a unique prefix); its task and settings "
                             "come with it, options given now win.")
TEST_CMD_OPTION = typer.Option(None, "--test-cmd", metavar="COMMAND",
                               help="How the repo's tests run, e.g. \"pytest tests/unit\" or "
                               "\"tox -e py311 --\" (default: the repo's interpreter -m pytest).")
TESTS_OPTION = typer.Option(None, "--tests", metavar="IDS",
                            help="Test files or ids to start from, space-separated.")
MAX_COST_OPTION = typer.Option(None, "--max-cost", metavar="USD",
                               help="Spend limit on model calls, USD (the embedded model costs 0).")
BASE_URL_OPTION = typer.Option(None, "--base-url", metavar="URL",
                               help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1 "
                               "(default: the embedded model).")
API_KEY_ENV_OPTION = typer.Option(None, "--api-key-env", metavar="VAR",
                                  help="Environment variable holding the API key (default: CODUR_API_KEY, "
                                  "else OPENAI_API_KEY).")


def run_command(
    task: str | None = TASK_ARGUMENT,
    repo: Path = typer.Option(Path("."), "--repo", "-r", help="The repository (default: current directory)."),
    max_turns: int | None = typer.Option(None, help="Plan→Act→Verify cycles at most."),
    timeout: float | None = typer.Option(None, help="Wall-clock limit, seconds."),
    dry_run: bool = DRY_RUN_OPTION,
    read_only: bool = typer.Option(False, "--read-only", help="Offer no tool that writes files or runs code."),
    keep_failed: bool = KEEP_FAILED_OPTION,
    confirm: bool = typer.Option(False, "--confirm", help="Show each write's diff and ask y/n/a(ll)/q(uit)."),
    allow_risky: bool = ALLOW_RISKY_OPTION,
    session: str | None = SESSION_OPTION,
    resume: str | None = RESUME_OPTION,
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also the model's replies and tool output."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print the summary only."),
    json_out: bool = typer.Option(False, "--json", help="One JSON event per line on stdout, the result last."),
    test_cmd: str | None = TEST_CMD_OPTION,
    tests: str | None = TESTS_OPTION,
    max_cost: float | None = MAX_COST_OPTION,
    model: str | None = typer.Option(None, "--model", help="Model name at the endpoint (default: the one it serves)."),
    base_url: str | None = BASE_URL_OPTION,
    api_key_env: str | None = API_KEY_ENV_OPTION,
) -> None:
    """Run the main job: plan, edit, verify, retry or repair; print status, reason and diff."""
    from codur.engine.checkpoints import ResumeError
    from codur.engine.contracts import RunRequest
    from codur.engine.runner import run
    from codur.llm.local import LocalModelUnavailable
    from codur.storage import StorageError

    console = Console(highlight=False)
    if not console.is_terminal:  # piped: whole lines, no wrapping at 80 columns
        console.soft_wrap = True
    err = Console(stderr=True, highlight=False, soft_wrap=True)  # an error is one line, however long
    _check_modes(err, read_only=read_only, confirm=confirm, quiet=quiet, verbose=verbose)
    flags = {"test_command": test_cmd, "tests": tests, "model": model, "base_url": base_url,
             "api_key_env": api_key_env, "max_cost_usd": max_cost, "allow_risky_patches": allow_risky or None}
    saved: dict[str, Any] = {}
    if resume is not None:  # the run's id, task and settings from its first start (engine/resume.py)
        resume, task, session, saved = _resumed(err, repo, resume, task, session)
    elif task is None:
        raise _fail(err, "task: say what codur should do: codur TASK, or codur --resume RUN_ID to go on with a run")
    cancel = threading.Event()
    fields: dict[str, Any] = {"task": task, "repo": repo, "max_turns": max_turns, "timeout_s": timeout,
                              "dry_run": dry_run}
    extra = {"session_id": session, "run_id": resume, "resume": resume is not None or None,
             "cancel_event": cancel}
    fields.update({k: v for k, v in extra.items() if v is not None and k in RunRequest.model_fields})
    request, config = _request_and_config(err, fields, repo, flags, saved)
    config = _with_modes(config, keep_failed=keep_failed, read_only=read_only, confirm=confirm)
    config, down = model_absent.preflight(err, config, request.task, dry_run=dry_run,  # before the suite
                                          served=provide_models is None)
    progress = Progress(console, verbose=verbose, quiet=quiet or json_out)
    stdout = sys.stdout
    on_event: Callable[[dict], None] = JsonLines(stdout, progress) if json_out else progress
    asker = None
    if confirm:
        from codur.ui.confirm import WriteConfirmation

        asker = WriteConfirmation(request.repo, err if json_out else console, on_quit=cancel.set,
                                  pause=progress.paused, cancel=cancel)
    if not quiet and not json_out:
        _banner(console, request, read_only=read_only)
    kwargs: dict[str, Any] = {"config": config, "on_event": on_event, "confirm": asker,
                              **({} if provide_models is None else {"models": provide_models(config)})}
    progress.start()
    try:
        with redirect_stdout(sys.stderr) if json_out else nullcontext():  # JSON lines only on stdout
            result = run(request, **kwargs)
    except (LocalModelUnavailable, ResumeError, StorageError) as exc:
        raise _fail(err, str(exc)) from None
    finally:
        progress.stop()
    result = model_absent.ended(result, down)
    if json_out:
        JsonLines(stdout, progress).result(result)
    else:
        from codur.ui.summary import print_summary

        print_summary(console, result, repo=request.repo)
    raise typer.Exit(_exit_code(result))


def _check_modes(err: Console, *, read_only: bool, confirm: bool, quiet: bool, verbose: bool) -> None:
    """Warn of ``CODUR_*`` variables that are no setting; exit 2 with one line for modes that exclude
    each other, or ``--confirm`` with no terminal on stdin to answer on."""
    from codur.config import CodurConfig
    from codur.config.origins import unknown_variables

    for warning in unknown_variables(CodurConfig):
        err.print(f"codur: warning: {warning}", highlight=False, markup=False)
    if read_only and confirm:
        raise _fail(err, "--read-only and --confirm exclude each other (read-only makes no write to confirm)")
    if quiet and verbose:
        raise _fail(err, "--quiet and --verbose exclude each other")
    if confirm and not stdin_is_terminal():
        raise _fail(err, "--confirm asks before each write, but stdin is no terminal to answer on (CI, a pipe, "
                         "< /dev/null); use --read-only to get the plan and a proposed diff without writing, "
                         "or run without --confirm")


def _request_and_config(err: Console, fields: dict[str, Any], repo: Path, flags: dict[str, Any],
                        saved: dict[str, Any]) -> tuple[Any, Any]:
    """(RunRequest of ``fields``, the repo's settings with ``saved`` (a resumed run's first start's)
    over them and ``flags`` over those; a None flag is not given, so it leaves the saved value);
    exit 2 with one line naming the option, variable or file when either is wrong."""
    from pydantic import ValidationError

    from codur.config import ConfigError, load_config
    from codur.engine.contracts import RunRequest

    try:
        request = RunRequest(**fields)
        config = load_config(repo, **{**saved, **{k: v for k, v in flags.items() if v is not None}})
        if config.base_url and config.api_key_env and not os.environ.get(config.api_key_env):
            raise ConfigError(f"--api-key-env: the variable {config.api_key_env} is not set (export it with the "
                              "endpoint's key, or name the variable that holds it)")
    except ValidationError as exc:
        first = exc.errors()[0]
        option = OPTIONS.get(str(first["loc"][0]) if first["loc"] else "")
        raise _fail(err, f"{option + ': ' if option else ''}{first['msg'].removeprefix('Value error, ')}") from None
    except ConfigError as exc:
        raise _fail(err, str(exc)) from None
    return request, config


def _exit_code(result: Any) -> int:
    """The command's exit code for a RunResult: 0 success or a dry run, 130 cancelled, else 1."""
    from codur.engine.contracts import RunStatus

    if result.status is RunStatus.CANCELLED:
        return 130
    return 0 if result.ok or result.status is RunStatus.DRY_RUN else 1


def _with_modes(config: Any, *, keep_failed: bool, read_only: bool, confirm: bool) -> Any:
    """``config`` (a CodurConfig) with the safe modes the flags ask for: ``keep_failed``, and the
    tool policy ``read_only`` or ``confirm_writes``."""
    if keep_failed:
        config = config.model_copy(update={"keep_failed": True})
    if read_only:
        return config.model_copy(update={"tool_policy": "read_only"})
    if confirm:
        return config.model_copy(update={"tool_policy": "confirm_writes"})
    return config


def _banner(console: Console, request: Any, *, read_only: bool) -> None:
    """The run's first line (task and repo), and what read-only means."""
    console.print(f"[bold]codur[/] · {escape(request.task)} · [dim]{escape(str(request.repo))}[/]")
    if read_only:
        console.print("[dim]read-only: nothing will be written; a task that needs an edit ends with the plan "
                      "and a proposed diff[/]")
