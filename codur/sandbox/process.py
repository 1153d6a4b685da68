"""Running a subprocess for a tool: timeout, cancellation, process-group kill, bounded output.

The child starts in its own session (so in its own process group); on timeout,
cancel, Ctrl-C or any error the whole group gets SIGTERM then SIGKILL, grandchildren
included, and when the leader exits whatever is left of its group is killed too.
Output is read by two threads that keep the first and last :data:`KEEP_BYTES` of
each stream, so a script that prints forever cannot fill the memory before its timeout.
"""

from __future__ import annotations

import codecs
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
from codur.sandbox.lifetime import die_with_parent, preexec
from codur.sandbox.limits import address_space_limit

KEEP_BYTES = 200_000


@dataclass(frozen=True)
class ProcessResult:
    """Outcome of :func:`run_process`. ``exit_code`` is None on timeout, on cancel and when stopped early."""

    argv: tuple[str, ...]
    exit_code: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    cancelled: bool = False
    stopped_early: bool = False  # ``stop_on_output`` asked to stop; exit_code is None


def signal_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` (default SIGKILL) to process group ``pgid`` (a child started with
    start_new_session leads its own group, ``pgid`` = its pid); a group that is gone, or not
    ours, is no error. The one place codur signals a group of processes."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group may be empty already
        os.killpg(pgid, sig)


def kill_process_group(proc: subprocess.Popen, grace_s: float = 1.0) -> None:
    """SIGTERM the whole process group of ``proc`` (started with start_new_session), wait up
    to ``grace_s`` seconds for ``proc``, then SIGKILL the group: children that outlived
    their leader or ignore SIGTERM die too, also when ``proc`` has already exited, and
    also when a second Ctrl-C comes during the grace."""
    signal_group(proc.pid, signal.SIGTERM)
    try:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace_s)
    finally:
        signal_group(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace_s)


class _Capture:
    """Reads a byte stream in a thread, keeping its first and last ``keep`` bytes."""

    def __init__(self, stream: IO[bytes], keep: int = KEEP_BYTES,
                 on_chunk: Callable[[bytes], None] | None = None) -> None:
        self.head, self.tail, self.dropped, self.keep = bytearray(), bytearray(), 0, keep
        self.on_chunk = on_chunk
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream: IO[bytes]) -> None:
        with stream:
            while chunk := stream.read1(65536):  # type: ignore[attr-defined]
                if self.on_chunk:
                    self.on_chunk(chunk)
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
                cancel: threading.Event | None = None,
                stop_on_output: Callable[[str], bool] | None = None,
                memory_mb: int | None = None, grace_s: float = 1.0) -> ProcessResult:
    """Run ``argv`` in ``cwd`` and wait at most ``timeout_s`` seconds.

    The process group is killed on timeout, as soon as ``cancel`` is set (checked every
    0.1 s), as soon as ``stop_on_output`` says so, on Ctrl-C, and when the leader exits
    while children still hold its output open.

    Args:
        env: the child's whole environment (default :func:`codur.sandbox.bwrap.allowed_env`).
        stop_on_output: called with the whole stdout read so far (decoded) each time more
            arrives; True stops the process (``ProcessResult.stopped_early``), e.g. once its
            output differs from an expected output.
        memory_mb: the child's address-space limit (RLIMIT_AS), MiB; None: none
            (:func:`codur.sandbox.limits.address_space_limit`).
        grace_s: seconds between SIGTERM and SIGKILL when the group is killed on timeout,
            cancel or Ctrl-C (:func:`kill_process_group`).

    Raises:
        OSError: the command could not be started (FileNotFoundError when not found).
    """
    t0 = time.monotonic()
    proc = subprocess.Popen(
        list(argv), cwd=cwd, env=dict(env) if env is not None else allowed_env(),
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=preexec(die_with_parent(), address_space_limit(memory_mb)),
    )
    if on_start:
        on_start(proc)
    early = threading.Event()
    out = _Capture(proc.stdout, on_chunk=_watcher(stop_on_output, early) if stop_on_output else None)  # type: ignore[arg-type]
    err = _Capture(proc.stderr)  # type: ignore[arg-type]
    if stdin is not None:
        threading.Thread(target=_feed, args=(proc.stdin, stdin.encode()), daemon=True).start()
    timed_out = cancelled = stopped_early = False
    deadline = t0 + timeout_s
    poll_s = 0.05 if stop_on_output else 0.1 if cancel is not None else None
    try:
        while proc.poll() is None:
            if cancel is not None and cancel.is_set():
                cancelled = True
                kill_process_group(proc, grace_s)
                break
            if early.is_set():
                stopped_early = True
                kill_process_group(proc, grace_s=0.2)
                break
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                kill_process_group(proc, grace_s)
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=min(left, poll_s) if poll_s else left)
    except BaseException:
        kill_process_group(proc, grace_s)
        raise
    kill_process_group(proc, grace_s=0.2)  # what the leader left behind does not outlive the call
    for capture in (out, err):
        capture.thread.join(timeout=2.0)
    stopped = timed_out or cancelled or stopped_early
    return ProcessResult(tuple(argv), None if stopped else proc.returncode, out.text(), err.text(),
                         time.monotonic() - t0, timed_out=timed_out, cancelled=cancelled, stopped_early=stopped_early)


def _watcher(stop_on_output: Callable[[str], bool], early: threading.Event) -> Callable[[bytes], None]:
    """A chunk callback that decodes stdout incrementally and sets ``early`` once
    ``stop_on_output`` returns True for the output so far."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    seen: list[str] = []

    def on_chunk(chunk: bytes) -> None:
        if early.is_set():
            return
        seen.append(decoder.decode(chunk))
        if stop_on_output("".join(seen)):
            early.set()

    return on_chunk
