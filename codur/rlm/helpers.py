"""Helpers the model calls from REPL code, plus output truncation and the notes on empty results.

Standard library only: this module is imported inside the sandbox worker
(:mod:`codur.rlm.worker`), where the model's code sees ``grep``, ``count``,
``lines_with``, ``between``, ``chunks``, ``chunk_text``, ``search_context``,
``count_matches``, ``extract_json`` and ``extract_sections`` with ``text``
defaulting to the ``context`` variable. Here every function takes the text
explicitly as its first argument. Every search ignores case unless told otherwise:
a small model writes ``error`` for a log that says ``ERROR`` (issue 26).
"""

from __future__ import annotations

import json
import re
from typing import Any

HELPER_NAMES = ("grep", "count", "lines_with", "between", "chunks", "chunk_text", "search_context",
                "count_matches", "extract_json", "extract_sections")
ZERO_MATCH_CHARS = 2_000  # a search finding nothing in at least this many characters is flagged
EMPTY_VALUES = frozenset({"", "0", "0.0", "[]", "{}", "()", "set()", "None", "''", '""', "False"})
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


def _compile(pattern: str, ignore_case: bool = True) -> re.Pattern[str]:
    """A regex (case-insensitive by default); a pattern that is not a valid regex is matched literally."""
    flags = re.IGNORECASE if ignore_case else 0
    try:
        return re.compile(pattern, flags | re.MULTILINE)
    except re.error:
        return re.compile(re.escape(pattern), flags)


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


#: characters of a line of the input quoted in a note, a hint or the first turn's retrieval: a whole
#: record of a JSON-lines log (150-300 characters) with the field that answers, not its first 120
QUOTED_LINE_CHARS = 400
#: where :func:`look_alike_note` starts the lines naming a search's name whole, one per line after it
WHOLE_NAME_LINES = "The whole-name lines:"


def zero_match_note(call: str, text_chars: int) -> str:
    """The note shown when a search found nothing: ``call`` (e.g. ``count('error')``) and the size searched."""
    return f"{call} -> 0 matches in {text_chars:,} characters: check case and spelling"


_REGEX_SYNTAX = re.compile(r"\\[A-Za-z]|[\^$.*+?()\[\]{}|]")


def anchor_of(pattern: str) -> str:
    """The longest plain-text part of a regex (``checkout-41`` of ``checkout-41\\s+listen\\s+on``),
    at least 3 characters, else ""."""
    parts = [part.replace("\\", "").strip() for part in _REGEX_SYNTAX.split(pattern)]
    best = max(parts, key=len, default="")
    return best if len(best) >= 3 and best != pattern else ""


def whole_name(token: str) -> re.Pattern[str]:
    """``token`` as a whole name, ignoring case: not inside a longer name of word characters and
    hyphens (``billing-46`` matches in ``service=billing-46 port=1``, not in ``billing-460``)."""
    return re.compile(rf"(?<![\w-]){re.escape(token)}(?![\w-])", re.IGNORECASE)


def where_part_is(pattern: str, text: str, *, shown: int = 3, width: int = QUOTED_LINE_CHARS) -> str:
    """For a search that found nothing: the lines holding the pattern's plain part (:func:`anchor_of`),
    ignoring case (those holding it as a whole token first: ``checkout-41`` before
    ``checkout-417``), so a small model sees the text's real format: `` its part 'checkout-41' is on 4
    lines, e.g.: <line> | <line>``; "" when the pattern has no such part or no line holds it."""
    anchor = anchor_of(pattern)
    if not anchor:
        return ""
    key = anchor.lower()
    lines = [line.strip() for line in text.splitlines() if key in line.lower()]
    if not lines:
        return ""
    whole = whole_name(anchor)
    lines.sort(key=lambda line: whole.search(line) is None)  # the part as a whole token first, else in order
    examples = " | ".join(line[:width] for line in lines[:shown])
    word = "" if whole.search(lines[0]) else ", none of them as a whole word"
    return f"; its part {anchor!r} is on {len(lines):,} line{'s' if len(lines) > 1 else ''}{word}, e.g.: {examples}"


def look_alike_note(call: str, pattern: str, lines: list[str], *, shown: int = 3,
                    width: int = QUOTED_LINE_CHARS) -> str:
    """For a search that found lines: a note when some of them hold the pattern's plain part
    (the pattern itself when it has no regex syntax, else :func:`anchor_of`) only inside a longer
    name (``billing-460``, ``prebilling-46``, ``billing-46-canary`` for ``billing-46``), so a small
    model does not take a look-alike's value: which lines hold the part as a whole name, or that
    none does (the name itself may be absent). "" when every line holds it whole, or it has no
    plain part. A side of the part that ends in a non-word character (``port=``) is not checked.
    The whole-name lines follow :data:`WHOLE_NAME_LINES`, one per line, indented
    (:func:`quoted_lines` reads them back)."""
    part = anchor_of(pattern) if _REGEX_SYNTAX.search(pattern) else pattern.strip()
    if len(part) < 3 or not lines or not all(isinstance(line, str) for line in lines):
        return ""
    left = r"(?<![\w-])" if re.match(r"\w", part) else ""
    right = r"(?![\w-])" if re.search(r"\w$", part) else ""
    if not left and not right:
        return ""
    whole = re.compile(left + re.escape(part) + right, re.IGNORECASE)
    longer = re.compile((r"[\w-]*" if left else "") + re.escape(part) + (r"[\w-]*" if right else ""), re.IGNORECASE)
    holding = [line for line in lines if part.lower() in line.lower()]
    exact = [line.strip()[:width] for line in holding if whole.search(line)]
    names = list(dict.fromkeys(m.group(0) for line in holding for m in longer.finditer(line)
                               if not whole.fullmatch(m.group(0))))
    if not names:
        return ""
    others = ", ".join(names[:5])
    if not exact:
        return (f"{call} -> {len(lines):,} lines, none with {part!r} as a whole name, only longer names "
                f"({others}): {part!r} itself may not be in the text")
    return (f"{call} -> {len(lines):,} lines, but only {len(exact):,} with {part!r} as a whole name; the others "
            f"name {others}. {WHOLE_NAME_LINES}" + "".join(f"\n  {line}" for line in exact[:shown]))


def quoted_lines(notes: list[str]) -> list[str]:
    """The lines of the input that :func:`look_alike_note` quoted in ``notes`` as naming the searched
    name whole: what the code's own search found, even when the code printed another line."""
    found = []
    for note in notes:
        head, marker, rest = note.partition(WHOLE_NAME_LINES)
        if marker:
            found += [line.strip() for line in rest.splitlines() if line.strip()]
    return found


def looks_empty(stdout: str) -> bool:
    """True when every printed line is an empty value (``0``, ``[]``, ``None``...), a ``label:`` before it allowed."""
    lines = [line.strip() for line in stdout.strip().splitlines()] or [""]
    return all(line.rsplit(":", 1)[-1].strip() in EMPTY_VALUES for line in lines)


CASE_FREE_CALLS = frozenset({"print", "grep", "count", "lines_with", "between", "search_context", "count_matches"})
#: calls whose literal is an answer, not a search: FINAL("NOT PRESENT") gets no zero-match note
ANSWER_CALLS = frozenset({"FINAL", "FINAL_VAR"})
#: the REPL variable that FINAL(value) / FINAL_VAR(variable) called in code leave the value in
FINAL_NAME = "final_answer"
_IGNORES_CASE = re.compile(r"IGNORECASE|\bre\.I\b|\(\?i\)|\.lower\(\)|\.upper\(\)|\.casefold\(\)")


def _searched_literals(code: str) -> list[str]:
    """The string literals (2 to 200 characters stripped) ``code`` passes to a call other than
    :data:`CASE_FREE_CALLS` and :data:`ANSWER_CALLS`, directly or through a name assigned to
    them, or tests with ``in``; in the order of an AST walk, each once. [] when ``code`` does
    not parse."""
    import ast

    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    named = {t.id: node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
             and isinstance(node.value, ast.Constant) for t in node.targets if isinstance(t, ast.Name)}
    found: list[str] = []
    for node in ast.walk(tree):
        candidates = []
        skipped = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in CASE_FREE_CALLS | ANSWER_CALLS
        if isinstance(node, ast.Call) and not skipped:
            candidates = [*node.args, *(k.value for k in node.keywords)]
        elif isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
            candidates = [node.left]
        for arg in candidates:
            if isinstance(arg, ast.Name):  # pattern = r"..." then re.search(pattern, context)
                arg = named.get(arg.id, arg)
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) \
                    and 2 <= len(arg.value.strip()) <= 200 and arg.value not in found:
                found.append(arg.value)
    return found


def search_literal_notes(code: str, text: str, *, empty: bool = True, limit: int = 5) -> list[str]:
    """Notes on the string literals ``code`` searches ``text`` for, counted as written and ignoring case.

    A literal passed to a call (not to ``print`` or a helper of :data:`CASE_FREE_CALLS`, which
    ignore case already, nor to FINAL), directly or through a name it was assigned to
    (``pattern = r"..."``), or tested with ``in`` gets a note when case changes its count:
    "matches 0 times as written but 312 times ignoring case", "matches 16 times as written but
    32 times ignoring case"; and, when the block's output was ``empty``, the zero-match note when
    nothing finds it. Code that ignores case itself (``re.I``, ``.lower()``...) gets only the
    zero-match note. Invalid regexes are matched literally; at most ``limit`` literals; code that
    does not parse gives no notes.
    """
    found = _searched_literals(code)
    case_free = _IGNORES_CASE.search(code) is not None
    notes = []
    for literal in found[:limit]:
        loose = sum(1 for _ in _compile(literal).finditer(text))
        exact = loose if case_free else sum(1 for _ in _compile(literal, ignore_case=False).finditer(text))
        if exact < loose:
            notes.append(f"{literal!r} matches {exact:,} times as written but {loose:,} times ignoring case: "
                         "use grep/count (they ignore case) or re.IGNORECASE")
        elif loose == 0 and empty:
            notes.append(zero_match_note(repr(literal), len(text)) + where_part_is(literal, text))
    return notes


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
