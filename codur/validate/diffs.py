"""Unified diffs of a patch, and the check that its file did not change during the search."""

from __future__ import annotations

from pathlib import Path

from codur.core.files import unified_diff
from codur.validate.source import read_source


def check_unchanged(path: Path, expected: str) -> None:
    """Raise RuntimeError if ``path``'s text (read in its declared coding,
    :mod:`codur.validate.source`) is no longer ``expected``: it changed while the search ran."""
    if read_source(path) != expected:
        raise RuntimeError(f"{path} changed during the repair search; patch not applied")


def unified_diffs(originals: dict[str, str], news: dict[str, str]) -> str:
    """Unified diff of several files (``news``: path -> new text; ``originals``: path ->
    old text), one after another in path order; files left equal add nothing."""
    return "".join(unified_diff(rel, originals[rel], news[rel]) for rel in sorted(news))
