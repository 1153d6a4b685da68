"""One run at a time per git work tree: an flock on ``<top>/.codur/run.lock`` (and :class:`FileLock`, the
same lock on any file: one batch at a time per results file and working folder).

Two runs on one repo would each keep their own change journal and silently undo
each other's edits. The lock is ``fcntl.flock`` on an open file, so the kernel
releases it when the holding process ends, however it ends: a lock file left by a
crashed run is never stale. The file holds the holder's pid and run id, for the
refusal message; it is not deleted on release (deleting would let two runs lock
two different files of the same name).
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path

from codur.core.codur_folder import codur_path

LOCK_NAME = "run.lock"


class LockHeld(RuntimeError):
    """Another process holds a :class:`FileLock`.

    Attributes:
        path: the lock file; ``holder``: what it says of the holder (pid, host, started, ...), maybe empty.
    """

    def __init__(self, path: Path, holder: dict, message: str | None = None) -> None:
        self.path, self.holder = path, holder
        super().__init__(message or f"{path} is held by {holder_text(holder)}")


class RepoLocked(LockHeld):
    """Another run holds the repo's lock."""

    def __init__(self, path: Path, holder: dict) -> None:
        who = f"pid {holder.get('pid', '?')}, run {holder.get('run_id', '?')}" if holder else "another process"
        super().__init__(path, holder, f"repo_locked: another codur run ({who}) is working on this repo ({path}); "
                         "wait for it to end or stop it")


class FileLock:
    """An exclusive ``flock`` on a file that says who holds it; :meth:`release` it at the end (the
    kernel releases it too when the process dies, however it dies)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path, self._fd = path, fd

    @classmethod
    def acquire(cls, path: Path, **holder: object) -> FileLock:
        """Take the lock on ``path`` without waiting and write ``holder`` (with pid, host and
        ``started``, epoch seconds) into it. The file is opened with ``O_NOFOLLOW``: a link in its
        place is refused, never written through.

        Raises:
            LockHeld: another process (or another lock in this one) holds it.
            OSError: the file cannot be opened (``ELOOP``: it is a symbolic link).
        """
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)  # not inherited by children (O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held = _read_holder(fd)
            os.close(fd)
            raise LockHeld(path, held) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        data = {"pid": os.getpid(), "host": socket.gethostname(), **holder, "started": round(time.time(), 3)}
        os.pwrite(fd, json.dumps(data).encode(), 0)
        return cls(path, fd)

    def release(self) -> None:
        """Unlock and close; idempotent."""
        if self._fd >= 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1


def work_tree_root(repo: Path) -> Path:
    """The top of the git work tree ``repo`` lies in (the nearest folder, ``repo`` included, that
    holds a ``.git`` folder or file), or ``repo`` itself outside git."""
    start = Path(repo).resolve()
    for folder in (start, *start.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return Path(repo)


class RepoLock:
    """The lock of one run on its repo: one per git work tree, so a run on a subfolder and one on
    the whole repo cannot revert each other's changes."""

    @staticmethod
    def acquire(repo: Path, run_id: str) -> FileLock:
        """Take ``<top>/.codur/run.lock`` without waiting, ``<top>`` the git work tree's top
        (:func:`work_tree_root`; the repo itself outside git, or when the top cannot hold codur's
        folder), with no link on the way (:func:`codur.core.codur_folder.codur_path`).

        Raises:
            RepoLocked: another run (in this process or another) holds it.
            codur.core.codur_folder.LinkedCodurFolder: ``.codur`` or the lock file is a link.
        """
        top = work_tree_root(repo)
        try:
            path = codur_path(top, LOCK_NAME)
        except OSError:  # a read-only top, a .codur that is a file there: the repo's own lock
            path = codur_path(Path(repo), LOCK_NAME)
        try:
            return FileLock.acquire(path, run_id=run_id)
        except LockHeld as exc:
            raise RepoLocked(path, exc.holder) from None


def holder_text(holder: dict) -> str:
    """``pid 812 on host, since 18:52:01`` from a lock file's holder, or ``another process``."""
    if not holder:
        return "another process"
    started = time.strftime("%H:%M:%S", time.localtime(float(holder.get("started") or 0)))
    return f"pid {holder.get('pid', '?')} on {holder.get('host', '?')}, since {started}"


def _read_holder(fd: int) -> dict:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
