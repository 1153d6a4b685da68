"""Unified diffs of a patch and its atomic application to the repository."""

from __future__ import annotations

from pathlib import Path

from codur.core.files import atomic_write_bytes, unified_diff
from codur.repair.source import read_source, source_bytes


def write_atomic(path: Path, text: str, expected: str) -> None:
    """Replace ``path`` with ``text`` (:func:`codur.core.files.atomic_write_bytes`, which keeps its mode).

    The file is read and written in its declared coding (:mod:`codur.repair.source`).
    Raises RuntimeError, leaving the file alone, if its content is no longer ``expected``
    (it changed while the search ran); ValueError if ``text`` does not fit its coding.
    """
    if read_source(path) != expected:
        raise RuntimeError(f"{path} changed during the repair search; patch not applied")
    atomic_write_bytes(path, source_bytes(text, path.name))


def unified_diffs(originals: dict[str, str], news: dict[str, str]) -> str:
    """Unified diff of several files (``news``: path -> new text; ``originals``: path ->
    old text), one after another in path order; files left equal add nothing."""
    return "".join(unified_diff(rel, originals[rel], news[rel]) for rel in sorted(news))
