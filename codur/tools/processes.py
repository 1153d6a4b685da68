"""A tool's process: run in the repo under bubblewrap when it works here (else with one
``sandbox.fallback`` event), with the allowlisted environment, killed on timeout or cancel,
and the secrets its output shows redacted (:mod:`codur.sandbox.secrets`).

:meth:`codur.tools.context.ToolContext.run` is the way in; this module is its body: :func:`prepare`
builds the command, :func:`run_prepared` runs it.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from codur.core.events.tool import SandboxFallback, SecretRedacted
from codur.sandbox.bwrap import (
    allowed_env,
    bwrap_argv,
    bwrap_problem,
    cannot_see,
    fallback_reason,
    hidden,
)
from codur.sandbox.interpreter import interpreter_paths
from codur.sandbox.process import ProcessResult, run_process
from codur.sandbox.secrets import redact
from codur.tools.errors import ToolError
from codur.tools.masking import git_views, linked_secrets, masked_files

if TYPE_CHECKING:
    import threading

    from codur.testing.command import TestCommand


class ProcessHost(Protocol):
    """What a tool's process takes of its tool context (:class:`codur.tools.context.ToolContext`,
    whose docstring gives each field): the repo, its limits and sandbox settings, the cancel
    event and the event channel; ``fallback_noted`` is written once."""

    root: Path
    timeout_s: float
    allow_secrets: bool
    read_only: bool
    env_allow: tuple[str, ...]
    cancel: threading.Event
    on_event: Callable[[dict], None] | None
    test_command: TestCommand | None
    memory_mb: int | None
    network: bool
    tmp_mb: int | None
    fallback_noted: bool


@dataclass(frozen=True)
class PreparedCommand:
    """A tool's command as it starts (:func:`prepare`).

    Attributes:
        argv: the command line: the tool's, wrapped in bwrap when ``sandboxed``.
        env: the child's whole environment (the allowlist plus the tool's variables).
        program: the tool's ``argv[0]`` as given, for messages.
        exe: the program's path (looked up on the child's PATH).
        sandboxed: it runs under bubblewrap.
    """

    argv: tuple[str, ...]
    env: dict[str, str]
    program: str
    exe: str
    sandboxed: bool


def prepare(ctx: ProcessHost, argv: Sequence[str], env: Mapping[str, str] | None,
            writable: Sequence[Path], layer: Sequence[str] = ()) -> PreparedCommand:
    """``argv`` for a tool of ``ctx`` with the allowlisted environment plus ``env``, under bubblewrap
    when it works here (the repo and ``writable`` read-write, the interpreters it may call and
    PYTHONPATH bound back, the repo's secret files masked (:func:`codur.tools.masking.masked_files`),
    its ``.git`` files with credentials replaced by clean copies (:func:`codur.tools.masking.git_views`)),
    else as it is with one ``sandbox.fallback`` event per context. ``layer``: bubblewrap's
    arguments that mount the repo through a copy-on-write layer (:mod:`codur.sandbox.overlay`);
    ignored without bubblewrap.

    Raises:
        ToolError: the command is not found.
    """
    child_env = allowed_env(env, ctx.env_allow)
    exe = argv[0] if "/" in argv[0] else shutil.which(argv[0], path=child_env.get("PATH"))
    if exe is None:
        raise ToolError(f"command not found: {argv[0]}")
    problem = bwrap_problem()
    if problem is not None:
        _note_fallback(ctx, problem)
        return PreparedCommand(tuple(argv), child_env, argv[0], exe, sandboxed=False)
    # what the private /tmp and home would hide: the program's prefix, the interpreters a
    # script may call (codur's, the repo's: a venv's python may link into ~/.pyenv), PYTHONPATH
    pythons = [sys.executable, *([ctx.test_command.interpreter] if ctx.test_command else [])]
    secrets = [] if ctx.allow_secrets else masked_files(ctx.root) + linked_secrets(ctx.root)  # read as empty
    command = bwrap_argv([exe, *argv[1:]], root=ctx.root, cwd=ctx.root, writable=writable, network=ctx.network,
                         tmp_mb=ctx.tmp_mb, masked=secrets, replaced=git_views(ctx.root),
                         read_only_root=ctx.read_only, layer=layer,
                         readable=hidden([*interpreter_paths(exe), *(p for py in pythons for p in
                                                                     interpreter_paths(py)),
                                          *filter(None, child_env.get("PYTHONPATH", "").split(os.pathsep))]))
    child_env["TMPDIR"] = "/tmp"  # the sandbox's private one
    return PreparedCommand(tuple(command), child_env, argv[0], exe, sandboxed=True)


def run_prepared(ctx: ProcessHost, command: PreparedCommand, timeout_s: float | None, stdin: str | None,
                 stop_on_output: Callable[[str], bool] | None) -> ProcessResult:
    """Run ``command`` (:func:`prepare`) in the repo of ``ctx``, killed past ``timeout_s`` seconds
    (None: the context's) or on cancel, and return its result with secrets redacted: the body of
    :meth:`codur.tools.context.ToolContext.run` (see it for the arguments), called with the
    context's call gate held.

    Raises:
        ToolError: the run is cancelled, or the command cannot be started (or, under bubblewrap,
            not seen).
    """
    program = command.program
    try:
        res = run_process(command.argv, cwd=ctx.root, timeout_s=ctx.timeout_s if timeout_s is None else timeout_s,
                          stdin=stdin, env=command.env, cancel=ctx.cancel, stop_on_output=stop_on_output,
                          memory_mb=ctx.memory_mb)
    except FileNotFoundError:
        raise ToolError(f"command not found: {program}") from None
    except PermissionError:
        raise ToolError(f"not executable: {program}") from None
    if res.cancelled:
        raise ToolError(f"the run was cancelled; {program} was killed")
    if command.sandboxed and res.exit_code == 1 and res.stderr.startswith("bwrap: execvp"):
        tests = ctx.test_command
        what = (f"the interpreter of {tests.origin}" if tests and command.exe in (tests.interpreter, tests.python)
                else f"the program {program}")
        raise ToolError(f"{cannot_see(command.exe, what)} ({res.stderr.strip()[:200]})")
    return _redacted(ctx, res, program)


def _redacted(ctx: ProcessHost, res: ProcessResult, program: str) -> ProcessResult:
    """``res`` with the secrets its output shows redacted (:mod:`codur.sandbox.secrets`),
    and a ``secret.redacted`` event naming their kinds (never their values)."""
    out, err = redact(res.stdout), redact(res.stderr)
    kinds = out.kinds + err.kinds
    if not kinds:
        return res
    if ctx.on_event:
        ctx.on_event(SecretRedacted(command=Path(program).name, count=len(kinds), kinds=sorted(set(kinds))))
    return dataclasses.replace(res, stdout=out.text, stderr=err.text)


def _note_fallback(ctx: ProcessHost, problem: str) -> None:
    """Say once per context (one per run) that code runs without bubblewrap, and why: a
    ``sandbox.fallback`` event, or a log warning when nothing takes events."""
    if ctx.fallback_noted:
        return
    ctx.fallback_noted = True
    reason = fallback_reason(problem)
    if ctx.on_event:  # the run's channel: the CLI prints it once, the trace keeps it
        ctx.on_event(SandboxFallback(reason=reason))
    else:
        logging.getLogger("codur.tools").warning(reason)

