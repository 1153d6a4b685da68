"""One run at a time per repo: an flock on ``<repo>/.codur/run.lock``.

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
import time
from pathlib import Path

LOCK_NAME = "run.lock"


class RepoLocked(RuntimeError):
    """Another run holds the repo's lock.

    Attributes:
        holder: what the lock file says of the other run (pid, run_id, started), maybe empty.
    """

    def __init__(self, path: Path, holder: dict) -> None:
        self.path, self.holder = path, holder
        who = f"pid {holder.get('pid', '?')}, run {holder.get('run_id', '?')}" if holder else "another process"
        super().__init__(f"repo_locked: another codur run ({who}) is working on this repo ({path}); "
                         "wait for it to end or stop it")


class RepoLock:
    """The held lock of one run; :meth:`release` it at the end (also released if the process dies)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path, self._fd = path, fd

    @classmethod
    def acquire(cls, repo: Path, run_id: str) -> RepoLock:
        """Take ``<repo>/.codur/run.lock`` without waiting.

        Raises:
            RepoLocked: another run (in this process or another) holds it.
        """
        path = Path(repo) / ".codur" / LOCK_NAME
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)  # not inherited by children (O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise RepoLocked(path, holder) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "run_id": run_id, "started": round(time.time(), 3)}).encode(), 0)
        return cls(path, fd)

    def release(self) -> None:
        """Unlock and close; idempotent."""
        if self._fd >= 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1


def _read_holder(fd: int) -> dict:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
