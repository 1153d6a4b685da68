"""Running a subprocess for a tool: timeout, cancellation, process-group kill, bounded output.

The child starts in its own session (so in its own process group); on timeout,
cancel, Ctrl-C or any error the whole group gets SIGTERM then SIGKILL, grandchildren
included, and when the leader exits whatever is left of its group is killed too.
Output is read by two threads that keep the first and last :data:`KEEP_BYTES` of
each stream, so a script that prints forever cannot fill the memory before its timeout.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from codur.sandbox.bwrap import allowed_env

KEEP_BYTES = 200_000


@dataclass(frozen=True)
class ProcessResult:
    """Outcome of :func:`run_process`. ``exit_code`` is None on timeout and on cancel."""

    argv: tuple[str, ...]
    exit_code: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    cancelled: bool = False


def kill_process_group(proc: subprocess.Popen, grace_s: float = 1.0) -> None:
    """SIGTERM the whole process group of ``proc`` (started with start_new_session), wait up
    to ``grace_s`` seconds for ``proc``, then SIGKILL the group: children that outlived
    their leader or ignore SIGTERM die too, also when ``proc`` has already exited."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):  # the group may be empty already
            os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace_s)


class _Capture:
    """Reads a byte stream in a thread, keeping its first and last ``keep`` bytes."""

    def __init__(self, stream: IO[bytes], keep: int = KEEP_BYTES) -> None:
        self.head, self.tail, self.dropped, self.keep = bytearray(), bytearray(), 0, keep
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream: IO[bytes]) -> None:
        with stream:
            while chunk := stream.read1(65536):  # type: ignore[attr-defined]
                room = self.keep - len(self.head)
                if room > 0:
                    self.head += chunk[:room]
                    chunk = chunk[room:]
                self.tail += chunk
                if len(self.tail) > self.keep:
                    self.dropped += len(self.tail) - self.keep
                    del self.tail[: len(self.tail) - self.keep]

    def text(self) -> str:
        head = self.head.decode("utf-8", "replace")
        tail = self.tail.decode("utf-8", "replace")
        return f"{head}\n…[{self.dropped} bytes of output dropped]…\n{tail}" if self.dropped else head + tail


def _feed(stream: IO[bytes], data: bytes) -> None:
    try:
        with stream:
            stream.write(data)
    except (BrokenPipeError, OSError):
        pass  # the process exited without reading all its input


def run_process(argv: Sequence[str], *, cwd: Path, timeout_s: float, stdin: str | None = None,
                env: Mapping[str, str] | None = None,
                on_start: Callable[[subprocess.Popen], None] | None = None,
                cancel: threading.Event | None = None) -> ProcessResult:
    """Run ``argv`` in ``cwd`` and wait at most ``timeout_s`` seconds.

    The process group is killed on timeout, as soon as ``cancel`` is set (checked every
    0.1 s), on Ctrl-C, and when the leader exits while children still hold its output open.

    Args:
        env: the child's whole environment (default :func:`codur.sandbox.bwrap.allowed_env`).

    Raises:
        OSError: the command could not be started (FileNotFoundError when not found).
    """
    t0 = time.monotonic()
    proc = subprocess.Popen(
        list(argv), cwd=cwd, env=dict(env) if env is not None else allowed_env(),
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )
    if on_start:
        on_start(proc)
    out, err = _Capture(proc.stdout), _Capture(proc.stderr)  # type: ignore[arg-type]
    if stdin is not None:
        threading.Thread(target=_feed, args=(proc.stdin, stdin.encode()), daemon=True).start()
    timed_out = cancelled = False
    deadline = t0 + timeout_s
    try:
        while proc.poll() is None:
            if cancel is not None and cancel.is_set():
                cancelled = True
                kill_process_group(proc)
                break
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                kill_process_group(proc)
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=min(left, 0.1) if cancel is not None else left)
    except BaseException:
        kill_process_group(proc)
        raise
    kill_process_group(proc, grace_s=0.2)  # what the leader left behind does not outlive the call
    for capture in (out, err):
        capture.thread.join(timeout=2.0)
    stopped = timed_out or cancelled
    return ProcessResult(tuple(argv), None if stopped else proc.returncode, out.text(), err.text(),
                         time.monotonic() - t0, timed_out=timed_out, cancelled=cancelled)
