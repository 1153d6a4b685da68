"""Cloze masks from fix templates: the holes a code model fills in one suspicious line.

Each :class:`Mask` cuts a span of the file's text (a statement, an expression, an empty
insertion point) that a fill-in-the-middle model rewrites; the new text is the prefix, the
fill and the suffix. The templates (:data:`TEMPLATES`), in the order tried on a line:

- ``return``: the return expression; ``rhs``: the right-hand side of an assignment;
- ``condition``: the test of an ``if`` / ``while`` / ``assert`` / conditional expression;
  ``compare``: one side of a comparison;
- ``choice``: a conditional expression whose ``else`` keeps the returned or assigned value, the hole
  before it (``share = <fill> else done / total``: the model writes ``1.0 if not total``), TBar's
  "mutate conditional expression" / "insert range checker" as one hole;
- ``args``: a call's whole argument list (an empty one included); ``arg``: one argument of
  several; ``callee``: the function a call calls;
- ``element``: an item of a tuple, list, set, dict (the value) or call (an argument, a keyword's
  value) written over several lines, on a line of its own (``    Version,`` in a tuple of types;
  ``"h": 360,`` in a table): TBar's "mutate data / literal" where the collection is too long
  for any one-line template to hold;
- ``line``: the whole statement;
- ``guard``: a new ``if <fill>:`` around the statement;
- ``before`` / ``after``: a new statement inserted before or after the line (the missing
  statement).

Method: cloze-style repair (AlphaRepair, Xia & Zhang, ESEC/FSE 2022) with fix templates turned
into mask patterns (Gamma, Zhang et al., ASE 2023; templates after TBar, Liu et al., ISSTA 2019).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

#: The templates, in the order a line's masks are tried.
TEMPLATES = ("return", "rhs", "condition", "compare", "choice", "args", "arg", "callee", "element", "line", "guard",
             "before", "after")
#: Statements after which nothing runs: no ``after`` insertion.
_ENDS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
#: Statements that choose the path (which lines run next, or whether the run goes on) rather
#: than compute a value: their header line is a *branch line* (:func:`branch_lines`).
BRANCHES = (ast.If, ast.While, ast.For, ast.AsyncFor, ast.Assert, ast.Raise, ast.Try)
#: The most items of one line given an ``element`` mask each.
MAX_ELEMENTS = 4


@dataclass(frozen=True)
class Mask:
    """A hole in ``file``'s text at ``line`` (1-based): the characters ``start``..``end`` (offsets
    in the text; equal for an insertion) are replaced by ``before + fill + after``.
    ``original``: the masked code ("" for an insertion)."""

    file: str
    line: int
    template: str
    start: int
    end: int
    original: str
    before: str = ""
    after: str = ""

    def prefix(self, text: str) -> str:
        """The text before the fill."""
        return text[:self.start] + self.before

    def suffix(self, text: str) -> str:
        """The text after the fill."""
        return self.after + text[self.end:]

    def apply(self, text: str, fill: str) -> str:
        """``text`` with the hole filled by ``fill``."""
        return self.prefix(text) + fill + self.suffix(text)


def masks(text: str, file: str, lines: list[int]) -> list[Mask]:
    """The masks of ``lines`` (best first) of ``text`` (a Python module), each line's in
    :data:`TEMPLATES` order, without repeats; a line holding no statement gives none.

    Raises:
        SyntaxError: ``text`` does not parse.
    """
    tree = ast.parse(text)
    starts = [0]
    for row in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(row))
    rows = text.splitlines()
    out: list[Mask] = []
    seen: set[int] = set()
    for line in lines:
        for mask in sorted(_line_masks(tree, rows, starts, file, line), key=lambda m: TEMPLATES.index(m.template)):
            key = hash((mask.prefix(text), mask.suffix(text)))  # "after" a line is "before" the next
            if key not in seen:
                seen.add(key)
                out.append(mask)
    return out


def branch_lines(text: str) -> set[int]:
    """The lines (1-based) of ``text`` where a :data:`BRANCHES` statement starts: an ``if`` /
    ``while`` / ``for`` header, an ``assert``, a ``raise``, a ``try``. Every other line holding a
    statement computes a value (an assignment, a return, a call).

    Raises:
        SyntaxError: ``text`` does not parse.
    """
    return {node.lineno for node in ast.walk(ast.parse(text)) if isinstance(node, BRANCHES)}


def _line_masks(tree: ast.AST, rows: list[str], starts: list[int], file: str, line: int) -> list[Mask]:
    if not 0 < line <= len(rows):
        return []
    row = rows[line - 1]
    indent = row[:len(row) - len(row.lstrip())]

    def offset(ln: int, col: int) -> int:  # ast columns are UTF-8 byte offsets
        return starts[ln - 1] + len(rows[ln - 1].encode()[:col].decode(errors="ignore"))

    def span(node: ast.AST, template: str) -> Mask | None:
        if node.lineno != line or node.end_lineno != line:
            return None
        start, end = offset(line, node.col_offset), offset(line, node.end_col_offset)
        return Mask(file, line, template, start, end, rows[line - 1][start - starts[line - 1]:end - starts[line - 1]])

    found: list[Mask | None] = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", line) < line <= getattr(node, "end_lineno", 0):
            found += _element_masks(node, span, line)
        if getattr(node, "lineno", None) != line:
            continue
        if isinstance(node, ast.Call):
            found += _call_masks(node, span, line, offset, rows, starts, file)
        else:
            found += _part_masks(node, span)
        if isinstance(node, ast.stmt):
            found += _statement_masks(node, span, line, indent, starts, rows, file)
    return [m for m in found if m is not None]


def _part_masks(node: ast.AST, span) -> list[Mask | None]:
    """``return``, ``rhs``, ``choice``, ``condition`` and ``compare`` of ``node``."""
    if isinstance(node, ast.Return | ast.Assign | ast.AugAssign | ast.AnnAssign) and node.value is not None:
        whole = span(node.value, "return" if isinstance(node, ast.Return) else "rhs")
        bare = isinstance(node.value, ast.Tuple | ast.IfExp | ast.Lambda | ast.Yield | ast.YieldFrom | ast.Starred)
        choice = None if whole is None or bare else replace(whole, template="choice", after=" else " + whole.original)
        return [whole, choice]  # a bare tuple would split at the else; a conditional or lambda nests badly
    if isinstance(node, ast.If | ast.While | ast.Assert | ast.IfExp):
        return [span(node.test, "condition")]
    if isinstance(node, ast.Compare):
        return [span(side, "compare") for side in (node.left, *node.comparators)]
    return []


def _element_masks(node: ast.AST, span, line: int) -> list[Mask | None]:
    """``element``: the items of a collection or call written over several lines (``node``
    starts before ``line``) that lie wholly on ``line`` (at most :data:`MAX_ELEMENTS`)."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        items = node.elts
    elif isinstance(node, ast.Dict):
        items = node.values
    elif isinstance(node, ast.Call):
        items = [*node.args, *(k.value for k in node.keywords)]
    else:
        return []
    items = [i for i in items if not isinstance(i, ast.Starred) and i.lineno == i.end_lineno == line]
    return [span(item, "element") for item in items[:MAX_ELEMENTS]]


def _call_masks(node: ast.Call, span, line: int, offset, rows: list[str], starts: list[int],
                file: str) -> list[Mask | None]:
    """``args`` (the whole list), ``arg`` (each of two or more) and ``callee`` of a one-line call."""
    if node.lineno != line or node.end_lineno != line:
        return []
    args = sorted([*node.args, *node.keywords], key=lambda a: (a.lineno, a.col_offset))
    out = [span(node.func, "callee")]
    if args:
        first = offset(line, args[0].col_offset)
        last = offset(line, args[-1].end_col_offset)
        base = starts[line - 1]
        out.append(Mask(file, line, "args", first, last, rows[line - 1][first - base:last - base]))
        if len(args) > 1:
            out += [span(a, "arg") for a in args]
    else:
        close = offset(line, node.end_col_offset) - 1  # the ")": an empty argument list
        out.append(Mask(file, line, "args", close, close, ""))
    return out


def _statement_masks(node: ast.stmt, span, line: int, indent: str, starts: list[int], rows: list[str],
                     file: str) -> list[Mask | None]:
    """``line``, ``guard``, ``before`` and ``after`` of a statement that starts at ``line``."""
    if node.lineno != line:
        return []
    head = starts[line - 1] + len(indent)
    out: list[Mask | None] = [Mask(file, line, "before", head, head, "", after="\n" + indent)]
    if node.end_lineno == line and not isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
        whole = span(node, "line")
        if whole is not None and whole.start == head:  # alone on its line
            out.append(whole)
            out.append(Mask(file, line, "guard", head, whole.end, "", before="if ",
                            after=":\n" + indent + "    " + whole.original))
            if not isinstance(node, _ENDS):
                out.append(Mask(file, line, "after", whole.end, whole.end, "", before="\n" + indent))
    return out
