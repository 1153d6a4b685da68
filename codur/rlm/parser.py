"""Parse a model reply of the RLM protocol: code blocks, FINAL(answer), FINAL_VAR(name), thinking.

The protocol follows Zhang, Kraska & Khattab, "Recursive Language Models" (2025): the
model writes ```repl (or ```python) blocks that run in the REPL, and ends with
``FINAL(answer)`` or ``FINAL_VAR(variable_name)`` written outside any fence.
A FINAL inside a fence (of any language) is code or an example, never the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

CODE_LANGUAGES = frozenset({"repl", "python", "py", "python3"})
_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w+-]*)[^\n]*$", re.MULTILINE)
_MARKER = re.compile(r"(?<![\w.])(?P<name>FINAL_VAR|FINAL)[ \t]*\(")
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")


@dataclass(frozen=True)
class FinalAnswer:
    """A final answer found outside code fences.

    Attributes:
        kind: ``direct`` for FINAL(answer), ``variable`` for FINAL_VAR(name); ``expression`` for
            FINAL_VAR(len(hits)), only inside :func:`parse_response`, which runs it as code.
        value: the answer text, or the variable name.
    """

    kind: Literal["direct", "variable", "expression"]
    value: str


@dataclass(frozen=True)
class ParsedResponse:
    """A reply split into its parts.

    Attributes:
        code_blocks: the bodies of ```repl / ```python blocks, in order.
        final: the first FINAL / FINAL_VAR outside fences, or None.
        thinking: everything outside code blocks and markers, stripped.
    """

    code_blocks: tuple[str, ...]
    final: FinalAnswer | None
    thinking: str


def _split_fences(text: str) -> list[tuple[str, str | None]]:
    """Segments of ``text`` in order: (body, None) for prose, (body, language) for a fence.

    An unclosed fence runs to the end of the text (a reply cut by max_tokens).
    """
    return [(body, lang) for body, lang, _ in _segments(text)]


def _segments(text: str) -> list[tuple[str, str | None, int]]:
    """:func:`_split_fences` with each body's start offset in ``text``."""
    segments: list[tuple[str, str | None, int]] = []
    pos = 0
    while (opening := _FENCE.search(text, pos)) is not None:
        segments.append((text[pos:opening.start()], None, pos))
        fence = opening.group("fence")
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE)
        body_start = opening.end() + 1
        close = closing.search(text, body_start) if body_start <= len(text) else None
        body_end = close.start() if close else len(text)
        segments.append((text[body_start:body_end], opening.group("lang").lower() or "", body_start))
        pos = close.end() if close else len(text)
    segments.append((text[pos:], None, pos))
    return segments


def without_final(text: str) -> str:
    """``text`` with every FINAL(...) / FINAL_VAR(...) outside code fences removed (fences untouched).

    The engine shows the model its reply this way when a FINAL was written in the same
    reply as code, before the output existed (issue 26): a small model seeing its own
    premature answer in the history repeats it instead of reading the output.
    """
    cuts: list[tuple[int, int]] = []
    for body, lang, offset in _segments(text):
        if lang is not None:
            continue
        pos = 0
        for match in _MARKER.finditer(body):
            if match.start() < pos:
                continue
            _, pos = _balanced_argument(body, match.end())
            cuts.append((offset + match.start(), offset + pos))
    for start, end in reversed(cuts):
        text = text[:start] + text[end:]
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _balanced_argument(text: str, start: int) -> tuple[str, int]:
    """The text inside parentheses opened just before ``start``, and the index after the ``)``.

    Nested parentheses are allowed. When the parentheses never close, the argument
    runs to the last ``)`` in the text, or to the end.
    """
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[start:i], i + 1
    last = text.rfind(")", start)
    end = last if last != -1 else len(text)
    return text[start:end], len(text)


def _unquote(value: str) -> str:
    value = value.strip()
    for quote in ('"""', "'''", '"', "'"):
        if len(value) >= 2 * len(quote) and value.startswith(quote) and value.endswith(quote):
            inner = value[len(quote):-len(quote)]
            if quote not in inner:
                return inner.strip()
    return value


def _find_final(prose: str) -> tuple[FinalAnswer | None, str]:
    """The first non-empty FINAL / FINAL_VAR in ``prose``, and the prose with all markers removed."""
    final: FinalAnswer | None = None
    kept, pos = [], 0
    for match in _MARKER.finditer(prose):
        if match.start() < pos:
            continue
        argument, end = _balanced_argument(prose, match.end())
        kept.append(prose[pos:match.start()])
        pos = end
        value = _unquote(argument)
        if final is not None or not value:
            continue
        if match.group("name") == "FINAL_VAR":
            if _IDENTIFIER.match(value):
                final = FinalAnswer("variable", value)
            elif re.fullmatch(r"[\w.,:/-]*\d[\w.,:/-]*", value):  # FINAL_VAR(41468): a value, written as one
                final = FinalAnswer("direct", value)
            elif _is_expression(value):  # FINAL_VAR(len(hits)): run as code (parse_response)
                final = FinalAnswer("expression", value)
        else:
            final = FinalAnswer("direct", value)
    kept.append(prose[pos:])
    return final, "".join(kept)


def _is_expression(value: str) -> bool:
    """True when ``value`` is a Python expression computing something (a call, an index, an
    attribute, arithmetic): ``len(grep("ERROR"))``, ``hits[0]``."""
    import ast

    try:
        tree = ast.parse(value, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return isinstance(tree.body, ast.Call | ast.Subscript | ast.Attribute | ast.BinOp)


def parse_response(text: str) -> ParsedResponse:
    """Split a model reply into code blocks, the final answer and the thinking.

    Args:
        text: the reply's text content.

    Returns:
        The :class:`ParsedResponse`. ``FINAL()`` with nothing inside and
        ``FINAL_VAR`` of something that is neither an identifier nor a value holding a digit
        (``FINAL_VAR(41468)`` is read as ``FINAL(41468)``) are not answers; ``FINAL_VAR`` of an
        expression (``FINAL_VAR(len(grep("ERROR")))``) becomes a code block ``FINAL_VAR(...)`` run
        after the reply's others: its value is computed in the REPL, as if the call were in code;
        a marker inside any code fence is ignored.
    """
    blocks: list[str] = []
    thinking_parts: list[str] = []
    final: FinalAnswer | None = None
    for body, lang in _split_fences(text):
        if lang is None:
            found, prose = _find_final(body)
            if found is not None and found.kind == "expression":  # computed in the REPL, like FINAL_VAR in code
                blocks.append(f"FINAL_VAR({found.value})")
                found = None
            final = final or found
            thinking_parts.append(prose)
        elif lang in CODE_LANGUAGES:
            if body.strip():
                blocks.append(body.strip("\n"))
            thinking_parts.append("\n")
        else:
            thinking_parts.append(f"\n{body}\n")
    thinking = re.sub(r"\n{3,}", "\n\n", "".join(thinking_parts)).strip()
    return ParsedResponse(tuple(blocks), final, thinking)


NO_ANSWER = frozenset({"", "none", "null", "n/a", "[]", "{}", "()", "set()", "unknown"})
"""Answers that say nothing (compared lowercased, stripped): FINAL(None) is not an answer."""


_OBJECT_REPR = re.compile(r"<(?:[\d,]+ records? \(|bound method |function |built-in |generator |class |module |"
                          r"[\w.]+ object at 0x)")


def is_object_repr(value: str | None) -> bool:
    """True for the printed form of an object rather than a value: ``<5,845 records (csv 5,845); ...>``
    (a :class:`codur.rlm.table.Records` table whose chain was not finished), ``<bound method ...>``,
    ``<function ...>``, ``<... object at 0x7f...>``. One line, between angle brackets."""
    text = (value or "").strip()
    return text.startswith("<") and text.endswith(">") and "\n" not in text and bool(_OBJECT_REPR.match(text))


def is_no_answer(value: str | None) -> bool:
    """True for None and the empty answers of :data:`NO_ANSWER`."""
    return value is None or value.strip().strip("'\"").lower() in NO_ANSWER


def parse_json_answer(text: str) -> str | None:
    """The ``answer`` of the first JSON object in ``text`` that has one, as a string; else None.

    A JSON-schema reply is the bare object ``{"answer": "43071"}``; a model without the
    schema may wrap it in prose or a fence, which is read too. A number or list answer is
    written back as JSON text (``43071``, ``["a", "b"]``); ``null`` is None.
    """
    import json

    from codur.llm.replies import json_objects

    for value in json_objects(text):
        if "answer" in value:
            answer = value["answer"]
            if answer is None:
                return None
            return answer.strip() if isinstance(answer, str) else json.dumps(answer)
    return None
