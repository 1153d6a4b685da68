"""Nothing codur starts outlives it: child processes die with it, temporary folders are swept.

**Processes.** Every child codur starts (tools, test runs, the repair fork server and
the runs it forks, the RLM worker, the command-line agent) gets ``PR_SET_PDEATHSIG`` =
SIGKILL on Linux (:func:`die_with_parent`, a ``preexec_fn``; it works with
``start_new_session``): the kernel kills it when codur dies, however it dies (SIGKILL,
the OOM killer, a closed terminal). The signal is tied to the *thread* that forked the
child, so a long-lived child is started from one thread that lives as long as codur
(:func:`spawn`); under bubblewrap ``--die-with-parent`` does the
same. A child's own children are not covered by it: the repair fork server arms it in
every run it forks, bubblewrap's PID namespace ends with its first process, and the
process-group kill (:mod:`codur.sandbox.process`) reaches the rest on a normal end. The
embedded model server runs inside codur's process (llama.cpp threads): it has no
process to leave behind.

**Temporary folders.** Those codur makes in the temp directory (:data:`SWEPT`) hold an
owner file (:data:`OWNER`: the pid and start time of the process that made them) and are
removed when their run or process ends normally; :func:`sweep` removes, at the start of
a run, those older than a day whose owner is no longer alive (killed before it could
clean up).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

PR_SET_PDEATHSIG = 1
#: The name of the owner file in a temporary folder: ``<pid> <start time in clock ticks>``.
OWNER = ".codur-owner"
#: Prefixes of the temporary folders :func:`sweep` may remove.
SWEPT = ("codur-repair-", "codur-pytest-", "codur-localize-", "codur-outcomes-", "codur-rlm-")
#: A folder younger than this (seconds) is never swept.
SWEEP_AGE_S = 24 * 3600.0


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


_PRCTL = _load_prctl()


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` for ``subprocess.Popen`` that makes the child get SIGKILL when the
    thread that started it (codur) ends; None where ``prctl`` is not available (not Linux).

    The child checks its parent right after arming the signal: if codur died in between,
    it exits at once (status 1)."""
    if _PRCTL is None:
        return None
    prctl, parent, kill = _PRCTL, os.getpid(), int(signal.SIGKILL)

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, kill, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return arm


def preexec(*steps: Callable[[], None] | None) -> Callable[[], None] | None:
    """One ``preexec_fn`` running ``steps`` in order (None ones skipped; e.g.
    :func:`die_with_parent` and :func:`codur.sandbox.limits.address_space_limit`), or None."""
    kept = tuple(step for step in steps if step is not None)
    if len(kept) <= 1:
        return kept[0] if kept else None

    def run() -> None:
        for step in kept:
            step()

    return run


def _start_time(pid: int) -> str:
    """The start time of process ``pid`` in clock ticks since boot ("" if unknown)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def own(folder: Path) -> Path:
    """Write the owner file (this process) into ``folder``; returns ``folder``."""
    (Path(folder) / OWNER).write_text(f"{os.getpid()} {_start_time(os.getpid())}")
    return Path(folder)


def make_temp_dir(prefix: str) -> Path:
    """A new folder in the temp directory (``tempfile.mkdtemp``) holding the owner file.
    The caller removes it; :func:`sweep` removes it a day after its owner died."""
    return own(Path(tempfile.mkdtemp(prefix=prefix)))


@contextlib.contextmanager
def temp_dir(prefix: str) -> Iterator[Path]:
    """:func:`make_temp_dir` as a context manager: the folder is removed when the block ends."""
    folder = make_temp_dir(prefix)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def owner_alive(folder: Path) -> bool:
    """True when the process named by ``folder``'s owner file still runs (the same process:
    its start time matches, so a reused pid does not count); False without an owner file."""
    try:
        pid_text, _, started = (Path(folder) / OWNER).read_text().strip().partition(" ")
        pid = int(pid_text)
    except (OSError, ValueError):
        return False
    now = _start_time(pid)
    return bool(now) and (not started or now == started)


def sweep(root: Path | None = None, *, max_age_s: float = SWEEP_AGE_S) -> list[Path]:
    """Remove codur's temporary folders (:data:`SWEPT`) under ``root`` (default: the temp
    directory) that are this user's, older than ``max_age_s`` seconds (last modified) and
    whose owner is not alive. Returns the folders removed; never raises."""
    root = Path(root or tempfile.gettempdir())
    removed = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    cutoff = time.time() - max_age_s
    for entry in entries:
        try:
            if (not entry.name.startswith(SWEPT) or not entry.is_dir(follow_symlinks=False)
                    or entry.stat(follow_symlinks=False).st_uid != os.getuid()
                    or entry.stat(follow_symlinks=False).st_mtime > cutoff or owner_alive(Path(entry.path))):
                continue
        except OSError:
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed


_spawner: list[queue.SimpleQueue] = []
_spawner_lock = threading.Lock()



def spawn(argv: Sequence[str], **popen: Any) -> subprocess.Popen:
    """``subprocess.Popen(argv, **popen)`` from one thread that lives as long as codur: bwrap's
    ``--die-with-parent`` and ``PR_SET_PDEATHSIG`` (:func:`codur.sandbox.lifetime.die_with_parent`,
    the default ``preexec_fn``) fire when the *thread* that started the child ends, and a
    long-lived child (the repair fork server, the RLM worker) is often started from a
    short-lived one. Raises what Popen raises."""
    with _spawner_lock:
        if not _spawner:
            _spawner.append(queue.SimpleQueue())
            threading.Thread(target=_serve_spawns, args=(_spawner[0],), name="codur-spawner", daemon=True).start()
    done: Future = Future()
    popen.setdefault("preexec_fn", die_with_parent())  # armed in the spawner thread's child
    _spawner[0].put((list(argv), popen, done))
    return done.result()


def _serve_spawns(requests: queue.SimpleQueue) -> None:
    while True:
        argv, popen, done = requests.get()
        try:
            done.set_result(subprocess.Popen(argv, **popen))
        except BaseException as exc:  # noqa: BLE001  (handed to the caller)
            done.set_exception(exc)
