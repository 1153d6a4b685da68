"""Helpers the model calls from REPL code, plus output truncation.

Standard library only: this module is imported inside the sandbox worker
(:mod:`codur.rlm.worker`), where the model's code sees ``chunk_text``,
``search_context``, ``count_matches``, ``extract_json`` and ``extract_sections``
with ``text`` defaulting to the ``context`` variable. Here every function takes
the text explicitly as its first argument.
"""

from __future__ import annotations

import json
import re
from typing import Any

HELPER_NAMES = ("chunk_text", "search_context", "count_matches", "extract_json", "extract_sections")
DEFAULT_SECTION_PATTERN = r"^(?:#{1,6} .+|=== .+ ===)$"


def truncate(text: str, limit: int) -> str:
    """Keep the first ``limit`` characters of ``text`` and say how much was cut.

    Args:
        text: any text (stdout, a model reply).
        limit: characters kept; 0 or less keeps nothing but the note.
    """
    if len(text) <= limit:
        return text
    kept = max(limit, 0)
    return f"{text[:kept]}\n[output truncated: {len(text):,} characters in total, showing the first {kept:,}]"


def _compile(pattern: str) -> re.Pattern[str]:
    """A case-insensitive regex; a pattern that is not a valid regex is matched literally."""
    try:
        return re.compile(pattern, re.IGNORECASE | re.MULTILINE)
    except re.error:
        return re.compile(re.escape(pattern), re.IGNORECASE)


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
