"""Files, written and compared one way: the atomic write and the unified diff every part of codur uses.

- :func:`atomic_writer` (and :func:`atomic_write_bytes` over it): a temp file in the same folder,
  fsync, ``os.replace`` — a crash or Ctrl-C leaves the old file or the new one, never half of either.
- :data:`IGNORED_DIRS`: the folders every walk of the repo skips (:func:`copy_ignore`: and every
  copy of it).
- :func:`unified_diff`: one file's diff with ``a/`` and ``b/`` headers (``/dev/null`` for a file
  that is created or deleted) and git's ``\\ No newline at end of file`` marker, so the text
  applies with ``git apply`` and ``patch -p1``.
"""

from __future__ import annotations

import difflib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

NO_NEWLINE = "\\ No newline at end of file\n"

#: Folders codur never reads, searches, copies or changes: version control, codur's own,
#: virtual environments, caches. Repair adds the folders it never mutates (tests, build output).
IGNORED_DIRS = frozenset({".git", ".codur", ".venv", "venv", "__pycache__", ".pytest_cache", ".mypy_cache",
                          ".ruff_cache", "node_modules", ".tox", ".nox", "site-packages"})


def copy_ignore(*, keep: Collection[str] = ()) -> Callable[[str, list[str]], set[str]]:
    """``shutil.copytree``'s ``ignore`` for a copy of a repo: the :data:`IGNORED_DIRS` (but those
    named in ``keep``), ``*.pyc``, and every entry that is not a regular file, a folder or a link
    (a FIFO, a socket, a device: copying one blocks or fails)."""
    patterns = shutil.ignore_patterns(*sorted(IGNORED_DIRS - set(keep)), "*.pyc")

    def ignore(directory: str, names: list[str]) -> set[str]:
        ignored = set(patterns(directory, names))
        for name in names:
            if name not in ignored:
                try:
                    mode = os.lstat(os.path.join(directory, name)).st_mode
                except OSError:
                    continue
                if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
                    ignored.add(name)
        return ignored
    return ignore


def current_umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def atomic_writer(path: Path) -> Iterator[BinaryIO]:
    """A binary file to write whose content becomes ``path`` when the ``with`` block ends: a temp
    file in the same directory, fsync, os.replace. An exception in the block (a checksum that
    does not match, Ctrl-C) removes the temp file and leaves ``path`` as it was.

    A crash leaves either the old file or the new one, never half of it. The file mode of an
    existing file is kept; a new file gets ``0o666`` less the umask, as ``open()`` would give
    it (mkstemp alone would leave it 0600). The folder is created when missing.

    Raises:
        OSError: the folder cannot be written (the temp file is removed; ``path`` is untouched).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~current_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".codur-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (:func:`atomic_writer`).

    Raises:
        OSError: the folder cannot be written (``path`` is untouched).
    """
    with atomic_writer(path) as f:
        f.write(data)


def unified_diff(rel: str, old: str | None, new: str | None) -> str:
    """The unified diff of one file, ``old`` → ``new`` (None: the file does not exist on that
    side), headers ``a/rel`` / ``b/rel`` (``/dev/null`` for a missing side); '' when equal."""
    if old == new:
        return ""
    lines = difflib.unified_diff((old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True),
                                 "/dev/null" if old is None else f"a/{rel}", "/dev/null" if new is None else f"b/{rel}")
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n" + NO_NEWLINE for line in lines)
