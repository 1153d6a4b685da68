"""Unified diffs of a patch and its atomic application to the repository."""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path

from codur.repair.source import read_source, source_bytes


def unified_diff(rel: str, old: str, new: str) -> str:
    """Unified diff of one file with ``a/rel`` and ``b/rel`` headers ("" if equal)."""
    lines = list(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                      f"a/{rel}", f"b/{rel}"))
    out = []
    for line in lines:
        out.append(line)
        if not line.endswith(("\n", "\r")):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)


def write_atomic(path: Path, text: str, expected: str) -> None:
    """Replace ``path`` with ``text`` (temp file in the same dir + ``os.replace``).

    The file is read and written in its declared coding (:mod:`codur.repair.source`).
    Raises RuntimeError, leaving the file alone, if its content is no longer ``expected``
    (it changed while the search ran); ValueError if ``text`` does not fit its coding.
    """
    if read_source(path) != expected:
        raise RuntimeError(f"{path} changed during the repair search; patch not applied")
    data = source_bytes(text, path.name)
    mode = path.stat().st_mode
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".codur")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def unified_diffs(originals: dict[str, str], news: dict[str, str]) -> str:
    """Unified diff of several files (``news``: path -> new text; ``originals``: path ->
    old text), one after another in path order; files left equal add nothing."""
    return "".join(unified_diff(rel, originals[rel], news[rel]) for rel in sorted(news))
