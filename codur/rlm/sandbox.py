"""The parent side of the RLM sandbox: one persistent worker process per executor.

What it does:
  * runs the model's code in a separate process (:mod:`codur.rlm.worker`, started
    with ``python -I`` and ``start_new_session``), never in the host process;
  * keeps variables between blocks (one namespace for the executor's life);
  * limits each block to ``timeout_s`` seconds of wall time, not counting time the
    parent spends answering bridge calls; on timeout it kills the worker's process
    group and starts a fresh worker (variables lost, ``context`` reloaded) and says so;
  * caps the worker's address space (RLIMIT_AS), CPU seconds over its life
    (RLIMIT_CPU), file size (RLIMIT_FSIZE) and processes (RLIMIT_NPROC: the user's
    count at start plus ``max_processes``; the kernel does not apply it to root),
    set in the worker before any code runs;
  * kills the worker's whole process group whenever it stops the worker (close,
    timeout, restart), even when the worker itself has already exited, so no child
    the code forked outlives the executor;
  * passes only allowlisted environment variables (PATH, the locale, TERM,
    VIRTUAL_ENV, PYTHONPATH...: :func:`codur.sandbox.bwrap.allowed_env`), and sets HOME and
    TMPDIR to a scratch directory that is also its working directory (deleted on close);
  * runs the worker under bubblewrap when it works here
    (:func:`codur.sandbox.bwrap.bwrap_problem`): a root of the system's programs and
    libraries and the interpreter only (:func:`codur.sandbox.sysview.system_view`), read-only,
    the scratch directory writable, a private /tmp, no network, its own PID namespace (a child that
    called ``setsid`` dies with it), the sandbox killed with its bwrap process, the files
    given as ``masked`` read as empty and those of ``replaced`` as their copies; else as
    before, with only the limits, the group kill and the allowlist;
  * truncates stdout and stderr past ``max_output_chars`` with a visible note, and
    redacts the secrets they show (:mod:`codur.sandbox.secrets`);
  * carries bridge calls (llm_query, rlm_query, batch_rlm_query) to the parent over
    the worker's own pipes: no socket is opened.

What it does NOT isolate: under bubblewrap, reading the system's programs and libraries and
the interpreter's folders; without it, reading whatever the user can read; CPU and memory beyond
the rlimits, and side channels; without bubblewrap also writing outside the scratch
directory, the network, other processes of the user (signals, /proc) and a child that
leaves the process group (``setsid``). It is a guard against runaway and careless
code, not a security boundary for hostile code: use a container or VM for that.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from codur.rlm.budget import BudgetExceeded
from codur.rlm.trace import CodeExecution
from codur.sandbox.bwrap import allowed_env, bwrap_argv, bwrap_problem
from codur.sandbox.lifetime import make_temp_dir, spawn
from codur.sandbox.process import kill_process_group
from codur.sandbox.secrets import redact
from codur.sandbox.sysview import system_view

WORKER_PATH = Path(__file__).with_name("worker.py")
BridgeHandler = Callable[[str, dict], Any]


class SandboxError(RuntimeError):
    """The worker could not start or answered outside the protocol."""


@dataclass(frozen=True)
class SandboxLimits:
    """Limits of a sandbox worker."""

    timeout_s: float = 60.0
    """Wall time per code block, seconds (bridge calls excluded)."""
    memory_mb: int = 1024
    """Address-space limit of the worker, MiB."""
    cpu_s: int = 600
    """CPU seconds over the worker's life; past it the kernel ends the worker."""
    fsize_mb: int = 256
    """Largest file the worker may write, MiB."""
    max_processes: int = 32
    """Processes and threads the worker may add (RLIMIT_NPROC, which the kernel counts per
    user: set to the user's count at start plus this; not enforced for root)."""
    max_output_chars: int = 20_000
    """stdout and stderr kept per block, characters each."""
    startup_timeout_s: float = 30.0
    """Wait this long for the worker to load the context, seconds."""


class _Channel:
    """Line-delimited JSON over the worker's stdout pipe, read with a deadline."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.buffer = b""
        self.selector = selectors.DefaultSelector()
        self.selector.register(proc.stdout, selectors.EVENT_READ)

    def send(self, message: dict) -> None:
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def receive(self, deadline: float) -> dict | None:
        """The next message, or None at EOF. Raises TimeoutError past ``deadline`` (monotonic)."""
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                raise TimeoutError
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def close(self) -> None:
        self.selector.close()


class Sandbox:
    """A persistent sandboxed REPL whose variable ``context`` holds the input.

    Args:
        context: the input: a str, or anything JSON can carry (list, dict).
        bridge: called as ``bridge(name, args)`` for each bridge request from the
            worker; its return value (JSON-serialisable) goes back to the code.
            Raising :class:`BudgetExceeded` raises it in the code; any other
            exception raises ``BridgeError`` there.
        limits: :class:`SandboxLimits`.
        masked: files the code reads as empty under bubblewrap (a repo's credential files, by
            their absolute paths: :func:`codur.tools.masking.masked_files`).
        replaced: (copy, file) pairs, each copy read in place of its file under bubblewrap (a
            repo's ``.git/config`` without its remotes' credentials: :func:`codur.tools.masking.git_views`).

    Use as a context manager, or call :meth:`start` and :meth:`close`.

    Raises:
        SandboxError: from :meth:`start` when the worker does not come up.
    """

    def __init__(self, context: Any, *, bridge: BridgeHandler | None = None,
                 limits: SandboxLimits | None = None, masked: Iterable[Path] = (),
                 replaced: Iterable[tuple[Path, Path]] = ()) -> None:
        self.limits = limits or SandboxLimits()
        self.masked, self.replaced = tuple(masked), tuple(replaced)
        self.bridge = bridge
        self.scratch = make_temp_dir("codur-rlm-")
        self._write_context(context)
        self.proc: subprocess.Popen | None = None
        self.channel: _Channel | None = None
        self.restarts = 0
        self.context_info: dict = {}
        self.confined = False  # runs under bubblewrap (set by start)

    def _write_context(self, context: Any) -> None:
        if isinstance(context, str):
            self.context_format, self.context_path = "text", self.scratch / ".context.txt"
            self.context_path.write_text(context, encoding="utf-8", newline="")
        else:
            self.context_format, self.context_path = "json", self.scratch / ".context.json"
            self.context_path.write_text(json.dumps(context), encoding="utf-8")

    def start(self) -> Self:
        if self.proc is not None:
            return self
        env = allowed_env({"HOME": str(self.scratch), "TMPDIR": str(self.scratch), "PYTHONUNBUFFERED": "1"})
        self.log_path = self.scratch / ".worker.log"
        argv = [sys.executable, "-I", str(WORKER_PATH)]
        self.confined = bwrap_problem() is None
        if self.confined:
            used = {Path(sys.prefix), Path(sys.base_prefix), WORKER_PATH.parent}  # all it sees of the machine
            argv = bwrap_argv(argv, root=self.scratch, cwd=self.scratch, view=system_view(sorted(used)),
                              masked=self.masked, replaced=self.replaced)
        with open(self.log_path, "ab") as log:
            self.proc = spawn(argv, cwd=self.scratch, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=log, start_new_session=True)
        self.channel = _Channel(self.proc)
        limits = self.limits
        try:
            self.channel.send({"op": "init", "context_path": str(self.context_path),
                               "context_format": self.context_format, "max_output_chars": limits.max_output_chars,
                               "memory_mb": limits.memory_mb, "cpu_s": limits.cpu_s, "fsize_mb": limits.fsize_mb,
                               "max_processes": limits.max_processes})
            reply = self.channel.receive(time.monotonic() + limits.startup_timeout_s)
        except (TimeoutError, OSError) as exc:
            reply = None
            self._stop()
            raise SandboxError(f"the sandbox worker did not start: {exc!r}") from exc
        if not reply or reply.get("op") != "ready":
            detail = self._log_tail()
            self._stop()
            raise SandboxError(f"the sandbox worker did not start: {reply or detail}")
        self.context_info = reply
        return self

    def _log_tail(self, chars: int = 800) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def _stop(self) -> None:
        if self.proc is not None:
            kill_process_group(self.proc, grace_s=0.5)  # also when the worker is gone: its children are not
            for pipe in (self.proc.stdin, self.proc.stdout):
                with contextlib.suppress(OSError):
                    pipe.close()
        if self.channel is not None:
            self.channel.close()
        self.proc, self.channel = None, None

    def _restart(self) -> None:
        self._stop()
        self.restarts += 1
        self.start()

    def _death_note(self) -> str:
        code = self.proc.wait(timeout=5) if self.proc else None
        if code is not None and code > 128 and self.confined:  # bwrap exits 128 + the signal that ended it
            code = 128 - code
        if code is not None and code < 0:
            name = signal.Signals(-code).name
            hint = {"SIGXCPU": " (CPU limit)", "SIGKILL": " (killed: memory or CPU limit?)"}.get(name, "")
            return f"the worker process died on {name}{hint}"
        return f"the worker process exited with code {code}"

    def _request(self, message: dict, timeout_s: float) -> dict:
        """Send a request and serve bridge calls until the reply; the deadline excludes bridge time."""
        if self.proc is None:
            self.start()
        assert self.channel is not None
        self.channel.send(message)
        deadline = time.monotonic() + timeout_s
        while True:
            reply = self.channel.receive(deadline)
            if reply is None:
                raise EOFError(self._death_note())
            if "bridge" not in reply:
                return reply
            t0 = time.monotonic()
            self.channel.send(self._serve_bridge(reply["bridge"], reply.get("args") or {}))
            deadline += time.monotonic() - t0

    def _serve_bridge(self, name: str, args: dict) -> dict:
        if self.bridge is None:
            return {"bridge_error": f"{name} is not available in this sandbox", "type": "BridgeError"}
        try:
            return {"bridge_result": self.bridge(name, args)}
        except BudgetExceeded as exc:
            return {"bridge_error": str(exc), "type": "BudgetExceeded"}
        except Exception as exc:  # noqa: BLE001 - the model's code reads the failure
            return {"bridge_error": f"{name} failed: {type(exc).__name__}: {exc}", "type": "BridgeError"}

    def execute(self, code: str) -> CodeExecution:
        """Run one code block in the persistent namespace.

        Returns:
            A :class:`CodeExecution`; a timeout or a dead worker is reported in its
            ``error`` (the worker is restarted and the variables are lost).
        """
        t0 = time.monotonic()
        try:
            reply = self._request({"op": "exec", "code": code}, self.limits.timeout_s)
        except TimeoutError:
            self._restart()
            return CodeExecution(code, error=(
                f"TimeoutError: the block ran over {self.limits.timeout_s:g}s and was killed; the REPL was "
                "restarted: every variable is lost (context is loaded again)"), duration_s=time.monotonic() - t0)
        except (EOFError, OSError) as exc:
            note = str(exc) or type(exc).__name__
            self._restart()
            return CodeExecution(code, error=(
                f"WorkerDied: {note}; the REPL was restarted: every variable is lost (context is loaded again)"),
                duration_s=time.monotonic() - t0)
        return CodeExecution(code, redact(reply.get("stdout", "")).text, redact(reply.get("stderr", "")).text,
                             reply.get("error"), float(reply.get("duration_s", time.monotonic() - t0)),
                             [str(n) for n in reply.get("notes") or []], reply.get("submitted"))

    def get_variable(self, name: str) -> tuple[bool, str | None]:
        """(found, str(value)) of a REPL variable, for FINAL_VAR."""
        try:
            reply = self._request({"op": "get_var", "name": name}, self.limits.timeout_s)
        except (TimeoutError, EOFError, OSError):
            self._restart()
            return False, None
        return bool(reply.get("found")), reply.get("value")

    def close(self) -> None:
        """Stop the worker and delete the scratch directory."""
        if self.channel is not None and self.proc is not None and self.proc.poll() is None:
            try:
                self.channel.send({"op": "shutdown"})
                self.proc.wait(timeout=1)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._stop()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
