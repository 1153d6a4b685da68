"""The REPL's notes on a block's searches, and how a line of the input is quoted in them.

Standard library only: the sandbox worker (:mod:`codur.rlm.worker`) imports this module, and
:mod:`codur.rlm.helpers` its :func:`compile_pattern`, without codur's package. A note says what
a small model would miss (issue 26): a search that found nothing in a large text
(:func:`zero_match_note`, with :func:`where_part_is`), lines of a search that name the searched
name only inside a longer one (:func:`look_alike_note`, whose whole-name lines
:func:`quoted_lines` reads back), and the string literals a block searched for whose count
changes with case (:func:`search_literal_notes`).
"""

from __future__ import annotations

import re

ZERO_MATCH_CHARS = 2_000  # a search finding nothing in at least this many characters is flagged

#: characters of a line of the input quoted in a note, a hint or the first turn's retrieval: a whole
#: record of a JSON-lines log (150-300 characters) with the field that answers, not its first 120
QUOTED_LINE_CHARS = 400
#: where :func:`look_alike_note` starts the lines naming a search's name whole, one per line after it
WHOLE_NAME_LINES = "The whole-name lines:"


def compile_pattern(pattern: str, ignore_case: bool = True) -> re.Pattern[str]:
    """A regex (case-insensitive by default); a pattern that is not a valid regex is matched literally."""
    flags = re.IGNORECASE if ignore_case else 0
    try:
        return re.compile(pattern, flags | re.MULTILINE)
    except re.error:
        return re.compile(re.escape(pattern), flags)


#: characters of a search's call or pattern quoted in a note: a call can carry a whole list of lines
#: (``count(str(lines))``), and a note quoting it whole once sent the model 18,000 tokens past its window
CALL_CHARS = 200


def shown_call(text: str) -> str:
    """``text`` (a search's call or pattern) as a note quotes it: at most :data:`CALL_CHARS`
    characters, then its length."""
    return text if len(text) <= CALL_CHARS else f"{text[:CALL_CHARS]}… [{len(text):,} characters]"


def zero_match_note(call: str, text_chars: int) -> str:
    """The note shown when a search found nothing: ``call`` (e.g. ``count('error')``, cut by
    :func:`shown_call`) and the size searched."""
    return f"{shown_call(call)} -> 0 matches in {text_chars:,} characters: check case and spelling"


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
    others, call, quoted = ", ".join(names[:5]), shown_call(call), shown_call(repr(part))
    if not exact:
        return (f"{call} -> {len(lines):,} lines, none with {quoted} as a whole name, only longer names "
                f"({others}): {quoted} itself may not be in the text")
    return (f"{call} -> {len(lines):,} lines, but only {len(exact):,} with {quoted} as a whole name; the others "
            f"name {others}. {WHOLE_NAME_LINES}" + "".join(f"\n  {line}" for line in exact[:shown]))


_ONLY_LONGER = re.compile(r"none with '([^']+)' as a whole name, only longer names \(([^)]*)\)")


def only_longer(notes: list[str]) -> list[tuple[str, list[str]]]:
    """The searched names that :func:`look_alike_note` found only inside longer names, read back from
    ``notes``: (the name, the longer names), in order."""
    return [(m.group(1), [n.strip() for n in m.group(2).split(",") if n.strip()])
            for note in notes for m in _ONLY_LONGER.finditer(note)]


def quoted_lines(notes: list[str]) -> list[str]:
    """The lines of the input that :func:`look_alike_note` quoted in ``notes`` as naming the searched
    name whole: what the code's own search found, even when the code printed another line."""
    found = []
    for note in notes:
        head, marker, rest = note.partition(WHOLE_NAME_LINES)
        if marker:
            found += [line.strip() for line in rest.splitlines() if line.strip()]
    return found


CASE_FREE_CALLS = frozenset({"print", "grep", "count", "lines_with", "between", "search_context", "count_matches",
                             "records", "startswith", "contains", "one_of"})
#: methods of ``records(text)`` whose literals are field names or values matched ignoring case
#: (``recs.where(resolution="duplicate")``, ``.sum("fee")``), never a case-sensitive search
RECORDS_METHODS = frozenset({"where", "sum", "values", "group_count", "top", "join", "fields"})
#: calls whose literal is an answer, not a search: FINAL("NOT PRESENT") gets no zero-match note
ANSWER_CALLS = frozenset({"FINAL", "FINAL_VAR"})
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
        skipped = isinstance(node, ast.Call) and (
            isinstance(node.func, ast.Name) and node.func.id in CASE_FREE_CALLS | ANSWER_CALLS
            or isinstance(node.func, ast.Attribute) and node.func.attr in RECORDS_METHODS)
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
        loose = sum(1 for _ in compile_pattern(literal).finditer(text))
        exact = loose if case_free else sum(1 for _ in compile_pattern(literal, ignore_case=False).finditer(text))
        if exact < loose:
            notes.append(f"{literal!r} matches {exact:,} times as written but {loose:,} times ignoring case: "
                         "use grep/count (they ignore case) or re.IGNORECASE")
        elif loose == 0 and empty:
            notes.append(zero_match_note(repr(literal), len(text)) + where_part_is(literal, text))
    return notes


_LINE_AS_RECORD = re.compile(r"\b(grep|lines_with|search_context|between|chunks|chunk_text)\(")


def line_as_record_note(code: str, error: str | None, recs) -> str:
    """The note for a block that read a field of a searched line (``grep("x")[0]["region"]``: a line is
    text, ``TypeError: string indices must be integers``) over an input that ``recs`` (the REPL's
    ``records(context)``, parsed on first use) reads as records; "" otherwise. The 1.5B model wrote that
    block again and again over a JSON array of nested objects, each run the same error."""
    if not error or "string indices must be integers" not in error or not _LINE_AS_RECORD.search(code):
        return ""
    try:
        records = len(recs) if recs is not None else 0
    except Exception:  # noqa: BLE001 - a note is a hint; an input that reads as no records gets none
        return ""
    if not records:
        return ""
    return (f"a search returns lines of text, and a line has no fields (`line['x']` fails); the input reads as "
            f"{records:,} records with fields: query them, `recs.where(field=value)` and then `.count()`, "
            "`.sum('field')`, `.first()['field']` (print(recs.fields()) lists the fields)")
