"""Helpers the model calls from REPL code, plus output truncation and the notes on empty results.

Standard library and :mod:`codur.rlm.notes` only: this module is imported inside the sandbox
worker (:mod:`codur.rlm.worker`, without codur's package), where the model's code sees ``grep``, ``count``,
``lines_with``, ``between``, ``chunks``, ``chunk_text``, ``search_context``,
``count_matches``, ``extract_json`` and ``extract_sections`` with ``text``
defaulting to the ``context`` variable. Here every function takes the text
explicitly as its first argument. Every search ignores case unless told otherwise:
a small model writes ``error`` for a log that says ``ERROR`` (issue 26).
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

from codur.rlm.notes import compile_pattern as _compile

HELPER_NAMES = ("grep", "count", "lines_with", "between", "chunks", "chunk_text", "search_context",
                "count_matches", "extract_json", "extract_sections")
EMPTY_VALUES = frozenset({"", "0", "0.0", "[]", "{}", "()", "set()", "None", "''", '""', "False"})
DEFAULT_SECTION_PATTERN = r"^(?:#{1,6} .+|=== .+ ===)$"


def truncate(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters: its head and its tail (a quarter of ``limit``,
    from a line start when one is near), with a line between them saying how much was cut. The tail
    is kept because a block's last lines are what it computed last (``print(len(hits))`` after the
    hits themselves).

    Args:
        text: any text (stdout, a model reply).
        limit: characters kept; 0 or less keeps nothing but the note.
    """
    if len(text) <= limit:
        return text
    kept = max(limit, 0)
    return cut_between(text[:kept - kept // 4], text[len(text) - kept // 4:] if kept // 4 else "", len(text))


def cut_between(head: str, tail: str, total: int) -> str:
    """``head`` and ``tail`` of a text of ``total`` characters, joined by the line saying what was cut;
    the tail starts after its first line break when that is in its first half (a whole line)."""
    newline = tail.find("\n")
    if 0 <= newline < len(tail) // 2:
        tail = tail[newline + 1:]
    shown = f"the first {len(head):,}" + (f" and the last {len(tail):,}" if tail else "")
    return f"{head}\n[output truncated: {total:,} characters in total, showing {shown}]" + (f"\n{tail}" if tail else "")


class Capture(io.TextIOBase):
    """A text sink keeping the first ``limit`` characters and the last quarter of ``limit``
    (:func:`cut_between` joins them), for a block's stdout and stderr in the worker, counting the rest."""

    def __init__(self, limit: int) -> None:
        self.limit, self.parts, self.kept, self.total = limit, [], 0, 0
        self.tail, self.tail_chars = "", limit // 4

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.total += len(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        if self.tail_chars:
            self.tail = (self.tail + text)[-self.tail_chars:]
        return len(text)

    def value(self) -> str:
        text = "".join(self.parts)
        if self.total <= self.kept:
            return text
        return cut_between(text[:self.limit - self.tail_chars], self.tail, self.total)


def grep(text: str, pattern: str, ignore_case: bool = True) -> list[str]:
    """The lines of ``text`` in which ``pattern`` (a regex; an invalid one is matched literally) matches.

    Lines come without their newline, in order; case is ignored unless ``ignore_case=False``.
    """
    regex = _compile(pattern, ignore_case)
    return [line for line in text.splitlines() if regex.search(line)]


def count(text: str, pattern: str, ignore_case: bool = True) -> int:
    """How many lines of ``text`` match ``pattern`` (``len(grep(text, pattern))``; a line counts once)."""
    regex = _compile(pattern, ignore_case)
    return sum(1 for line in text.splitlines() if regex.search(line))


def lines_with(text: str, *words: str) -> list[str]:
    """The lines of ``text`` containing every one of ``words`` (plain substrings, case ignored).

    Raises:
        ValueError: no word given.
    """
    if not words:
        raise ValueError("lines_with needs at least one word")
    wanted = [w.lower() for w in words]
    return [line for line in text.splitlines() if all(w in line.lower() for w in wanted)]


def between(text: str, start: str, end: str) -> str:
    """The text after the first ``start`` up to the next ``end`` (plain substrings, case ignored),
    both markers excluded; ``""`` when ``start`` is absent, the rest of the text when ``end`` is."""
    lower = text.lower()
    i = lower.find(start.lower())
    if i == -1:
        return ""
    i += len(start)
    j = lower.find(end.lower(), i)
    return text[i:] if j == -1 else text[i:j]


def chunks(text: str, n: int) -> list[str]:
    """``text`` cut into ``n`` pieces of about equal size, at line ends (fewer when lines are few).

    Raises:
        ValueError: ``n`` < 1.
    """
    if n < 1:
        raise ValueError("chunks needs n >= 1")
    if not text:
        return []
    size, pieces, start = -(-len(text) // n), [], 0
    while start < len(text):
        end = min(start + size, len(text))
        newline = text.find("\n", end - 1) if end < len(text) else -1
        end = len(text) if end >= len(text) else (newline + 1 if newline != -1 else len(text))
        pieces.append(text[start:end])
        start = end
    return pieces


def looks_empty(stdout: str) -> bool:
    """True when every printed line is an empty value (``0``, ``[]``, ``None``...), a ``label:`` before it allowed."""
    lines = [line.strip() for line in stdout.strip().splitlines()] or [""]
    return all(line.rsplit(":", 1)[-1].strip() in EMPTY_VALUES for line in lines)


#: the REPL variable that FINAL(value) / FINAL_VAR(variable) called in code leave the value in
FINAL_NAME = "final_answer"

def chunk_text(text: str, size: int = 20_000, overlap: int = 200) -> list[str]:
    """Split ``text`` into pieces of at most ``size`` characters, ``overlap`` shared between neighbours.

    A cut prefers the last newline in the second half of a piece, so lines stay whole.
    An ``overlap`` of ``size`` or more is reduced to ``size // 2``.

    Raises:
        ValueError: ``size`` < 1 or ``overlap`` < 0.
    """
    if size < 1 or overlap < 0:
        raise ValueError("chunk_text needs size >= 1 and overlap >= 0")
    overlap = overlap if overlap < size else size // 2
    chunks, start = [], 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text):
            newline = text.rfind("\n", start + size // 2, end)
            if newline != -1:
                end = newline + 1
        chunks.append(text[start:end])
        if end >= len(text):
            break
        start = max(end - overlap, start + 1)
    return chunks


def search_context(text: str, pattern: str, window: int = 150, max_results: int = 20) -> list[str]:
    """Snippets of ``text`` around each match of ``pattern`` (regex, case-insensitive).

    Each snippet is ``"[@offset] …before MATCH after…"`` with ``window`` characters
    either side; at most ``max_results`` snippets, in order of position.
    """
    out = []
    for match in _compile(pattern).finditer(text):
        lo, hi = max(match.start() - window, 0), min(match.end() + window, len(text))
        out.append(f"[@{match.start()}] {text[lo:hi]}")
        if len(out) >= max_results:
            break
    return out


def count_matches(text: str, pattern: str) -> int:
    """How many times ``pattern`` (regex, case-insensitive) matches in ``text``."""
    return sum(1 for _ in _compile(pattern).finditer(text))


def extract_json(text: str) -> Any:
    """The first JSON object or array in ``text`` (fenced or bare), parsed; None when there is none."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        return value
    return None


def extract_sections(text: str, pattern: str = DEFAULT_SECTION_PATTERN) -> dict[str, str]:
    """Split ``text`` at heading lines matching ``pattern`` → {heading: body}.

    The default pattern matches Markdown headings (``## Title``) and the file
    headers of codur's repo contexts (``=== path/to/file.py ===``). Text before
    the first heading is under the key ``""`` when it is not blank; a repeated
    heading gets a suffix: ``"# Notes (2)"``.
    """
    regex = re.compile(pattern, re.MULTILINE)
    sections: dict[str, str] = {}
    heads = list(regex.finditer(text))
    preamble = text[: heads[0].start()] if heads else text
    if preamble.strip():
        sections[""] = preamble
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        key = head.group(0).strip()
        if key in sections:
            key = f"{key} ({sum(1 for k in sections if k == key or k.startswith(key + ' (')) + 1})"
        sections[key] = text[head.end():end].strip("\n")
    return sections


def need_text(name: str, value) -> None:
    """A helper's pattern or word must be a str: a list (a small model's commonest slip, the result
    of an earlier grep) raises a TypeError saying what to pass instead."""
    if not isinstance(value, str):
        kind = f"a list of {len(value)} items" if isinstance(value, list | tuple) else type(value).__name__
        raise TypeError(f"{name}() takes a str pattern, not {kind}: pass one string, e.g. {name}(items[0]) or "
                        f"a name from it, or loop: for line in items: ...")


def display(value) -> None:
    """Print ``value``'s repr unless it is None: the REPL's display of an expression statement."""
    if value is not None:
        print(repr(value))
