"""Comparing a program's output with an expected output, also while it is still running.

Lines are compared with their trailing whitespace removed, ``\\r\\n`` read as ``\\n``,
and blank lines at the end ignored: ``"hello \\n\\n"`` matches ``"hello"``.
"""

from __future__ import annotations


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.replace("\r\n", "\n").rstrip().split("\n")] if text.strip() else []


def diverges(so_far: str, expected: str) -> bool:
    """True once ``so_far`` (the output read until now, maybe cut mid-line) can no longer
    become ``expected``: a finished line differs, or there is more than was expected."""
    want = _lines(expected)
    parts = so_far.replace("\r\n", "\n").split("\n")
    finished, partial = parts[:-1], parts[-1]
    for i, line in enumerate(finished):
        line = line.rstrip()
        if i < len(want) and line != want[i] or i >= len(want) and line:
            return True
    i = len(finished)
    if not partial.strip():
        return False
    return i >= len(want) or not want[i].startswith(partial.rstrip())


def first_difference(output: str, expected: str) -> str | None:
    """None when ``output`` matches ``expected``; else where it differs, in one line."""
    got, want = _lines(output), _lines(expected)
    for i in range(max(len(got), len(want))):
        g = got[i] if i < len(got) else None
        w = want[i] if i < len(want) else None
        if g != w:
            return (f"line {i + 1}: expected {w!r}, got {g!r}" if g is not None and w is not None else
                    f"line {i + 1}: expected {w!r}, the output ended" if g is None else
                    f"line {i + 1}: unexpected {g!r} after the expected output")
    return None
