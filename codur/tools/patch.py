"""Unified diffs for the apply_patch tool: parse them and apply them exactly (fuzz 0).

Like ``patch -F0``: every context and removed line of a hunk must match the file
exactly (line endings aside); a hunk may move from its stated line (offset) when
its lines match elsewhere, the nearest match winning. Unlike ``patch``, the
``@@ -a,b +c,d @@`` line counts are not trusted (small models often get them
wrong): a hunk is the run of ' ', '-', '+' lines after its header, and a blank
line inside it is read as a blank context line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from codur.tools.context import ToolError

HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NO_NEWLINE = "\\ No newline at end of file"


@dataclass(frozen=True)
class Hunk:
    """One ``@@`` block: ``lines`` start with ' ', '-' or '+'; ``old_start`` is 1-based."""

    old_start: int
    lines: tuple[str, ...]
    new_ends_without_newline: bool = False

    @property
    def old(self) -> list[str]:
        return [line[1:] for line in self.lines if line[0] in " -"]

    @property
    def new(self) -> list[str]:
        return [line[1:] for line in self.lines if line[0] in " +"]


@dataclass(frozen=True)
class FilePatch:
    """The hunks for one file; ``old_path`` None creates it, ``new_path`` None deletes it."""

    old_path: str | None
    new_path: str | None
    hunks: tuple[Hunk, ...]

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or "?"


def _path(header: str) -> str | None:
    raw = header[4:].split("\t")[0].strip()
    if raw.startswith('"') and raw.endswith('"'):
        raw = raw[1:-1]
    return None if raw == "/dev/null" else raw


def _strip_prefixes(old: str | None, new: str | None) -> tuple[str | None, str | None]:
    """Drop git's a/ and b/ prefixes (like ``patch -p1``) when the diff uses them."""
    if (old is None or old.startswith("a/")) and (new is None or new.startswith("b/")) and (old or new):
        return (old[2:] if old else None), (new[2:] if new else None)
    return old, new


def _read_hunk(lines: list[str], i: int, old_start: int) -> tuple[Hunk, int]:
    body: list[str] = []
    no_newline = False
    while i < len(lines):
        line = lines[i]
        if line.startswith(("@@", "diff --git")):
            break
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            break
        if line.startswith("\\"):
            no_newline = no_newline or (bool(body) and body[-1][0] in " +")
        elif line == "":
            body.append(" ")
        elif line[0] in " -+":
            body.append(line)
        else:
            break
        i += 1
    while body and body[-1] == " ":  # blank lines after the hunk, not blank context
        body.pop()
    return Hunk(old_start, tuple(body), no_newline), i


def parse_unified_diff(text: str) -> list[FilePatch]:
    """The file patches of a unified diff (git-style or plain ``diff -u``).

    Raises:
        ToolError: no ``---``/``+++`` file header, a hunk without header, or an empty hunk.
    """
    lines = text.replace("\r\n", "\n").split("\n")
    patches: list[FilePatch] = []
    i = 0
    while i < len(lines):
        if not (lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")):
            if lines[i].startswith("@@"):
                raise ToolError("a hunk (@@ ... @@) comes before any '--- a/file' / '+++ b/file' header")
            i += 1
            continue
        old, new = _strip_prefixes(_path(lines[i]), _path(lines[i + 1]))
        i += 2
        hunks = []
        while i < len(lines) and (m := HUNK_HEADER.match(lines[i])):
            hunk, i = _read_hunk(lines, i + 1, int(m.group(1)))
            if not hunk.lines:
                raise ToolError(f"an empty hunk in the patch for {new or old}")
            hunks.append(hunk)
        if not hunks:
            raise ToolError(f"no hunks (@@ -a,b +c,d @@ lines) for {new or old}")
        patches.append(FilePatch(old, new, tuple(hunks)))
    if not patches:
        raise ToolError("no file header found: a unified diff starts with '--- a/path' then '+++ b/path'")
    return patches


def _matches_at(lines: list[str], block: list[str], at: int) -> bool:
    return at + len(block) <= len(lines) and lines[at:at + len(block)] == block


def apply_hunks(text: str, hunks: tuple[Hunk, ...], path: str) -> str:
    """``text`` with every hunk applied, in order.

    Raises:
        ToolError: a hunk's context or removed lines are not in the file (message
            names the hunk and the first line that differs).
    """
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines()
    ends_with_newline = text.endswith(("\n", "\r"))
    offset = 0
    searched_from = 0
    for n, hunk in enumerate(hunks, 1):
        old, new = hunk.old, hunk.new
        base = hunk.old_start - 1 if old else hunk.old_start  # an insertion goes after its line
        expected = min(max(base + offset, 0), len(lines))
        if expected >= searched_from and _matches_at(lines, old, expected):
            at = expected
        else:
            found = [k for k in range(searched_from, len(lines) - len(old) + 1) if _matches_at(lines, old, k)]
            if not found:
                raise ToolError(f"hunk {n} for {path} does not match the file: "
                                f"{_first_difference(lines, old, expected)}."
                                " Read the file and copy the context lines exactly")
            at = min(found, key=lambda k: abs(k - expected))
        lines[at:at + len(old)] = new
        offset = at - base + len(new) - len(old)
        searched_from = at + len(new)
        if at + len(new) == len(lines):
            ends_with_newline = not hunk.new_ends_without_newline
    if not lines:
        return ""
    return newline.join(lines) + (newline if ends_with_newline else "")


def _first_difference(lines: list[str], block: list[str], at: int) -> str:
    for k, want in enumerate(block):
        have = lines[at + k] if at + k < len(lines) else None
        if have != want:
            if have is None:
                return f"line {at + k + 1} should be {want!r} but the file has only {len(lines)} lines"
            hint = " (they differ only in whitespace)" if have.strip() == want.strip() else ""
            return f"line {at + k + 1} should be {want!r} but is {have!r}{hint}"
    return f"the lines around line {at + 1} differ"
