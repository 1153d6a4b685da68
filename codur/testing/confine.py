"""Where repair's test runs are confined: bubblewrap when it works, else the allowlist only.

The warm pytest fork server (:class:`codur.testing.forkserver.Runner`) starts inside
bubblewrap, so every test run it forks is confined for the price of a fork:

- the whole filesystem read-only; the scratch area (:func:`scratch_root`), which holds
  the workers' copies of the repo and the spool of report files, read-write;
- a private /tmp and a private, empty home (``~/.ssh``, ``~/.aws`` unreadable); the repo,
  the interpreter's prefixes, ``bin/`` and ``sys.path`` folders
  (:func:`codur.sandbox.interpreter.interpreter_paths`) and the repair plugin bound back
  read-only, with the links on the way to them, when they lie under /tmp or the home;
- no network; its own PID namespace, in which the server kills what a finished run
  left behind (a process that called ``setsid`` too), and everything when it ends;
- the repo's own credential files (``.env``, keys: :func:`codur.tools.masking.masked_files`)
  read as empty at their absolute paths too, and its ``.git`` files as copies without a remote's
  credentials, unless ``allow_secrets`` (:class:`OriginSecrets`, given by the caller);
- the environment allowlist (:func:`codur.sandbox.bwrap.allowed_env`, through
  :func:`codur.testing.command.plugin_env`): a secret in codur's environment is not
  visible to the tests. ``tool_env_allow`` does not reach here.

A non-pytest command runs under its own bwrap per run, the same way. Without a working
bwrap (:func:`codur.sandbox.bwrap.bwrap_problem`) the runs keep the process-group kill
and the allowlist, and the first worker of the process says so once: a
``sandbox.fallback`` event (a log warning outside a run).
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import shutil
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from codur.sandbox.bwrap import (
    bwrap_argv,
    bwrap_problem,
    fallback_reason,
    hidden,
    hidden_in_sandbox,
)
from codur.sandbox.interpreter import interpreter_paths
from codur.sandbox.lifetime import make_temp_dir
from codur.sandbox.limits import MEMORY_ENV
from codur.sandbox.process import ProcessResult, run_process, signal_group
from codur.testing import command as testcmd

_lock = threading.Lock()
_state: dict = {"root": None, "said": False}


def scratch_root() -> Path:
    """This process's scratch area (created on first use, removed at exit): the parent
    of every worker's copy, the one folder a sandboxed test run may write."""
    with _lock:
        if _state["root"] is None:
            _state["root"] = make_temp_dir("codur-repair-").resolve()
            (_state["root"] / "spool").mkdir()
            atexit.register(shutil.rmtree, _state["root"], ignore_errors=True)
        return _state["root"]


def problem() -> str | None:
    """None when the test runs are confined by bubblewrap; else why not, said once per
    process (a ``sandbox.fallback`` event in a run, else a log warning, as the tools do)."""
    why = bwrap_problem()
    with _lock:
        say, _state["said"] = why is not None and not _state["said"], _state["said"] or why is not None
    if say:
        from codur.core.events import emit
        from codur.core.events.tool import SandboxFallback

        reason = "repair's test runs: " + fallback_reason(why)
        if not emit(SandboxFallback(reason=reason)):  # no run takes it: log it
            logging.getLogger("codur.validate").warning(reason)
    return why


def readable(*paths: Path | str) -> tuple[Path, ...]:
    """Those of ``paths`` the private /tmp would hide (to bind back read-only), plus the
    repair plugin's folder when it is hidden too; the scratch area is bound already."""
    return tuple(p for p in hidden((*paths, testcmd.RUNTIME_DIR)) if not p.is_relative_to(scratch_root()))


class OriginSecrets(NamedTuple):
    """What of the repo a confined run must not read by its absolute path: ``masked``, its credential files
    (:func:`codur.tools.masking.masked_files`), read as empty; ``views``, (cleaned copy, file) pairs for
    its ``.git`` files holding a remote's credentials (:func:`codur.tools.masking.git_views`), each copy
    read in place of its file. The worker's copy holds the first empty and no ``.git``, but the repo
    itself lies in the read-only filesystem. Built by the caller (``codur.tools.masking.origin_secrets``);
    empty under ``allow_secrets``."""

    masked: tuple[Path, ...] = ()
    views: tuple[tuple[Path, Path], ...] = ()


def confine(argv: Sequence[str], cwd: Path, seen: Sequence[Path], secrets: OriginSecrets = OriginSecrets()
            ) -> list[str]:
    """``argv`` under bwrap: the scratch area read-write, ``seen`` (see :func:`readable`)
    bound back read-only, those of ``secrets`` the run could see hidden (:class:`OriginSecrets`), run
    in ``cwd``; the sandbox dies with the bwrap process."""
    return bwrap_argv(argv, root=scratch_root(), cwd=cwd, readable=seen, masked=secrets.masked,
                      replaced=secrets.views)


def visible(path: Path, seen: Sequence[Path]) -> bool:
    """True when a run confined with ``seen`` bound back (see :func:`readable`) sees ``path``."""
    full = Path(path).resolve()
    return (not hidden_in_sandbox(full) or full.is_relative_to(scratch_root())
            or any(full.is_relative_to(s.resolve()) for s in seen))


def spool(env: dict[str, str], job: str, seen: Sequence[Path]) -> tuple[dict[str, str], Callable[[], None]]:
    """``env`` with the repair plugin's files (:data:`testcmd.PLUGIN_FILES`) that a sandboxed
    run could not reach moved into the scratch area's spool, and the function to call after
    the run: it moves the reports back where the caller expects them."""
    spool_dir = scratch_root() / "spool"
    moved, back, copies = dict(env), [], []
    for key, direction in testcmd.PLUGIN_FILES.items():
        path = Path(env[key]) if env.get(key) else None
        if path is None or path.resolve().is_relative_to(scratch_root()):
            continue
        if direction == "in" and visible(path, seen):
            continue
        local = spool_dir / f"{job}-{key.lower()}-{path.name}"
        if direction == "in":
            if path.is_file():
                shutil.copyfile(path, local)
            copies.append(local)
        else:
            local.unlink(missing_ok=True)
            back.append((local, path))
        moved[key] = str(local)

    def finish() -> None:
        for local, path in back:
            if local.exists():
                shutil.move(local, path)
        for local in copies:
            local.unlink(missing_ok=True)

    return moved, finish


def run_confined(argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float,
                 on_start: Callable[[Callable[[], None]], None], origin: Path,
                 interpreter: str = sys.executable, *, confined: bool = True,
                 secrets: OriginSecrets = OriginSecrets()) -> ProcessResult:
    """Run ``argv`` in ``cwd`` with the whole environment ``env`` through codur's one process
    runner (:func:`codur.sandbox.process.run_process`: its own process group, killed with it,
    at most ``timeout_s`` seconds); return its result (``exit_code`` None when it was killed).
    Under bwrap when ``confined`` and it works: the scratch area read-write, ``origin`` (the
    repo), ``argv[0]``'s prefix and the repo's ``interpreter`` (a script may call it) bound
    back when under /tmp or the home, report files through the spool, ``secrets`` (``origin``'s
    credential files and ``.git`` credentials) hidden (:class:`OriginSecrets`). Its address space is
    limited to ``env``'s :data:`MEMORY_ENV` MiB when set. ``on_start`` gets the function that
    kills it. Called by :func:`codur.testing.runner.run_tests` alone."""
    finish = None
    if confined and problem() is None:
        seen = readable(origin, *interpreter_paths(argv[0]), *interpreter_paths(interpreter))
        env, finish = spool(env, f"{os.getpid()}-{threading.get_ident()}", seen)
        env["TMPDIR"] = "/tmp"  # the sandbox's private one
        argv = confine(argv, cwd, seen, secrets)
    try:
        return run_process(argv, cwd=cwd, env=env, timeout_s=timeout_s,
                           on_start=lambda proc: on_start(functools.partial(signal_group, proc.pid)),
                           memory_mb=int(env.get(MEMORY_ENV) or 0) or None)
    finally:
        if finish is not None:
            finish()
