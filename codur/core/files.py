"""Files, written and compared one way: the atomic write and the unified diff every part of codur uses.

- :func:`atomic_write_bytes`: a temp file in the same folder, fsync, ``os.replace`` — a crash or
  Ctrl-C leaves the old file or the new one, never half of either.
- :data:`IGNORED_DIRS`: the folders every walk of the repo skips.
- :func:`unified_diff`: one file's diff with ``a/`` and ``b/`` headers (``/dev/null`` for a file
  that is created or deleted) and git's ``\\ No newline at end of file`` marker, so the text
  applies with ``git apply`` and ``patch -p1``.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path

NO_NEWLINE = "\\ No newline at end of file\n"

#: Folders codur never reads, searches, copies or changes: version control, codur's own,
#: virtual environments, caches. Repair adds the folders it never mutates (tests, build output).
IGNORED_DIRS = frozenset({".git", ".codur", ".venv", "venv", "__pycache__", ".pytest_cache", ".mypy_cache",
                          ".ruff_cache", "node_modules", ".tox", ".nox", "site-packages"})


def current_umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temp file in the same directory and os.replace.

    A crash or Ctrl-C leaves either the old file or the new one, never half of it.
    The file mode of an existing file is kept; a new file gets ``0o666`` less the
    umask, as ``open()`` would give it (mkstemp alone would leave it 0600). The folder is
    created when missing.

    Raises:
        OSError: the folder cannot be written (the temp file is removed; ``path`` is untouched).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~current_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".codur-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def unified_diff(rel: str, old: str | None, new: str | None) -> str:
    """The unified diff of one file, ``old`` → ``new`` (None: the file does not exist on that
    side), headers ``a/rel`` / ``b/rel`` (``/dev/null`` for a missing side); '' when equal."""
    if old == new:
        return ""
    lines = difflib.unified_diff((old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True),
                                 "/dev/null" if old is None else f"a/{rel}", "/dev/null" if new is None else f"b/{rel}")
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n" + NO_NEWLINE for line in lines)
