"""Whole-function patches: choose the function to rewrite, read the model's reply, splice it in.

A model sample is the corrected function written whole in a fenced block. It is
parsed with :mod:`ast`, matched to the target function by name, re-indented to the
target's indentation (methods inside classes, nested functions, tabs) and put in
place of the target's lines (decorators kept when the reply has none), with the
file's own line endings (CRLF kept). A candidate that does not compile is dropped.
A reply rewriting functions of several files is spliced by name and file
(:func:`splice_files`).
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass

from codur.core.pyast import BOM, parse_ast

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_FENCE_RE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


@dataclass(frozen=True)
class FunctionSpan:
    """One function of a file: ``start``..``end`` are 1-based inclusive lines, decorators
    included; ``def_line`` is the ``def`` line; ``qualname`` is e.g. ``Cart.total``;
    ``indent`` the whitespace before ``def``."""

    file: str
    name: str
    qualname: str
    start: int
    def_line: int
    end: int
    indent: str

    @property
    def lines(self) -> int:
        return self.end - self.start + 1


def functions(text: str, file: str = "") -> list[FunctionSpan]:
    """Every function and method of ``text`` (nested ones too), outermost first.
    Raises SyntaxError when ``text`` does not parse."""
    tree = parse_ast(text)
    lines = text.splitlines()
    out: list[FunctionSpan] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for stmt in body:
            if isinstance(stmt, _FUNCS):
                start = min([d.lineno for d in stmt.decorator_list] + [stmt.lineno])
                line = lines[stmt.lineno - 1]
                out.append(FunctionSpan(file, stmt.name, prefix + stmt.name, start, stmt.lineno,
                                        stmt.end_lineno or stmt.lineno, line[: len(line) - len(line.lstrip())]))
                visit(stmt.body, f"{prefix}{stmt.name}.<locals>.")
            elif isinstance(stmt, ast.ClassDef):
                visit(stmt.body, f"{prefix}{stmt.name}.")
            else:
                for block in ("body", "orelse", "finalbody"):
                    visit(getattr(stmt, block, None) or [], prefix)

    visit(tree.body, "")
    return out


def function_at(text: str, line: int, file: str = "", max_lines: int = 80) -> FunctionSpan | None:
    """The function to rewrite for a suspicious ``line``: the outermost function holding
    it (a method counts as outermost inside its class) when it has at most ``max_lines``
    lines, else the innermost one; None when ``line`` is in no function."""
    return holding(functions(text, file), line, max_lines)


def holding(spans: list[FunctionSpan], line: int, max_lines: int = 80) -> FunctionSpan | None:
    """:func:`function_at` over a file's :func:`functions` already parsed."""
    around = [f for f in spans if f.start <= line <= f.end]
    if not around:
        return None
    for span in around:  # outermost first
        if span.lines <= max_lines:
            return span
    return around[-1]


def code_blocks(reply: str) -> list[str]:
    """The fenced code blocks of a model reply, in order; the whole reply when it has
    none (a bare function); an unclosed last fence counts (the reply was cut)."""
    blocks = [m.group(2) for m in _FENCE_RE.finditer(reply)]
    return blocks or [reply]


def _find_def(code: str, name: str) -> tuple[str, ast.AST] | None:
    """The outermost ``def name`` in ``code`` (its source dedented, and its node), or None."""
    code = textwrap.dedent(code.replace("\r\n", "\n"))
    try:
        tree = parse_ast(code)
    except SyntaxError:
        return None
    found = None
    for node in ast.walk(tree):
        if isinstance(node, _FUNCS) and node.name == name:
            found = node
            break  # ast.walk is breadth-first: the outermost def of that name
    if found is None:
        return None
    lines = code.splitlines()
    start = min([d.lineno for d in found.decorator_list] + [found.lineno])
    body = lines[start - 1: found.end_lineno]
    return textwrap.dedent("\n".join(body)), found


def _indent_like(code: str, indent: str) -> str:
    """Re-indent dedented ``code`` under ``indent``; a tab-indented file gets tabs."""
    out = []
    for line in code.split("\n"):
        if not line.strip():
            out.append("")
            continue
        if "\t" in indent:
            stripped = line.lstrip(" ")
            line = "\t" * ((len(line) - len(stripped)) // 4) + stripped
        out.append(indent + line)
    return "\n".join(out)


def _docstring(node: ast.AST) -> ast.Expr | None:
    body = getattr(node, "body", None) or [None]
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first
    return None


def _keep_docstring(code: str, lines: list[str], span: FunctionSpan) -> str:
    """Put the original's docstring back into a rewrite that dropped it (a small model
    often does), so the patch shows only the change in behaviour."""
    try:
        new_def = parse_ast(code).body[0]
        old_src = textwrap.dedent("\n".join(lines[span.start - 1: span.end]))
        old_def = parse_ast(old_src).body[0]
    except (SyntaxError, IndexError):
        return code
    old_doc = _docstring(old_def)
    if old_doc is None or _docstring(new_def) is not None or not getattr(new_def, "body", None):
        return code
    old_lines, new_lines = old_src.split("\n"), code.split("\n")
    doc = textwrap.dedent("\n".join(old_lines[old_doc.lineno - 1: old_doc.end_lineno])).split("\n")
    first = new_def.body[0]
    indent = new_lines[first.lineno - 1][: first.col_offset]
    if first.lineno == new_def.lineno:  # a one-line body after the colon: leave it
        return code
    return "\n".join(new_lines[: first.lineno - 1] + [indent + d if d else d for d in doc]
                     + new_lines[first.lineno - 1:])


def splice(text: str, span: FunctionSpan, reply: str) -> str | None:
    """``text`` with the function ``span`` replaced by its rewrite found in ``reply``.

    The first fenced block holding ``def <name>`` is used (a reply may hold several
    blocks and prose). Returns None when no block defines the function or the result
    does not compile. The original's decorators are kept when the rewrite has none;
    CRLF line endings are kept.
    """
    found = None
    for block in code_blocks(reply):
        found = _find_def(block, span.name)
        if found:
            break
    if found is None:
        return None
    code, node = found
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.replace("\r\n", "\n").split("\n")
    code = _keep_docstring(code, lines, span)
    if not node.decorator_list and span.start < span.def_line:
        code = "\n".join(s[len(span.indent):] for s in lines[span.start - 1: span.def_line - 1]) + "\n" + code
    new_lines = lines[: span.start - 1] + _indent_like(code, span.indent).split("\n") + lines[span.end:]
    new = "\n".join(new_lines)
    try:
        compile(new.removeprefix(BOM), span.file or "<candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return new.replace("\n", newline) if newline != "\n" else new


def normalized(text: str) -> str:
    """A key equal for texts with the same AST (formatting and comments ignored), for
    deduplicating candidates; the text itself when it does not parse."""
    try:
        tree = parse_ast(text)
    except SyntaxError:
        return text
    for node in ast.walk(tree):  # docstrings do not change behaviour
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            body[:1] = [] if len(body) > 1 else [ast.Pass()]  # with or without one: the same key
    return ast.dump(tree, annotate_fields=False)


def source_of(text: str, span: FunctionSpan) -> str:
    """The source of ``span``, dedented."""
    lines = text.replace("\r\n", "\n").split("\n")[span.start - 1: span.end]
    return textwrap.dedent("\n".join(lines))


def labelled_blocks(reply: str) -> list[tuple[str, str]]:
    """The fenced blocks of ``reply`` as (label, code): the label is the last line of
    text before the block, its fence line and its first line when that is a comment
    (where a model names the file: ``parser.py:``, ```` ```python title="parser.py" ````,
    ``# parser.py``). The whole reply, unlabelled, when it has no fence."""
    out: list[tuple[str, str]] = []
    at = 0
    for m in _FENCE_RE.finditer(reply):
        before = [x for x in reply[at: m.start()].splitlines() if x.strip()]
        code = m.group(2)
        first = code.lstrip().split("\n", 1)[0]
        label = " ".join([*before[-1:], m.group(0).split("\n", 1)[0], first if first.startswith("#") else ""])
        out.append((label, code))
        at = m.end()
    return out or [("", reply)]


def _names_file(label: str, file: str) -> bool:
    return bool(file) and (file in label or re.search(rf"(?<![\w/.]){re.escape(file.rsplit('/', 1)[-1])}\b", label)
                           is not None)


def splice_files(texts: dict[str, str], spans: list[FunctionSpan], reply: str) -> dict[str, str]:
    """Every function of ``spans`` (in one or several files; ``texts``: file -> text)
    replaced by its rewrite in ``reply``, matched by name and file: the block defining
    ``def <name>`` whose label names the span's file (:func:`labelled_blocks`), else,
    when no other span has that name, the first block defining it (a reply that names
    the function but not its file), else the n-th block defining the name for the n-th
    span of that name. Returns the new text of each file where a function was spliced
    (a file whose splice did not compile keeps its text); {} when none was."""
    blocks = labelled_blocks(reply)
    out: dict[str, str] = {}
    for file in dict.fromkeys(s.file for s in spans):
        new, done = texts[file], False
        for span in sorted((s for s in spans if s.file == file), key=lambda s: -s.start):  # bottom first
            same = [s for s in spans if s.name == span.name]
            defining = [(label, code) for label, code in blocks if _find_def(code, span.name)]
            named = [code for label, code in defining if _names_file(label, span.file)]
            if named:
                code = named[0]
            elif len(same) == 1 and defining:
                code = defining[0][1]
            elif len(defining) >= len(same):
                code = defining[same.index(span)][1]
            else:
                continue
            spliced = splice(new, span, f"```python\n{code}\n```")
            if spliced is not None:
                new, done = spliced, True
        if done:
            out[file] = new
    return out
