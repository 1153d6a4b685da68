"""Windows: a long function's suspicious lines, shown and answered as an edit of those lines.

A small model rewriting a 70- or 200-line function whole writes 700 to 2,000 tokens: past
the embedded model's completion cap (512 tokens), so the reply is cut, and 25-90 s a sample
on two cores when it is not. A function longer than :data:`WINDOW_MIN_LINES` is therefore
shown as an excerpt (its signature, the lines around the window, ``...`` for the rest) and
the model rewrites only the window: up to :data:`WINDOW_LINES` lines around the line fault
localization ranks first, cut at statement boundaries (:func:`window_of`). The reply is
spliced over the window's lines (:func:`apply_lines`), re-indented to them; code it adds in
another block or as imports before the window's lines goes to the module
(:func:`codur.patch.additions.merge`).

Method: hunk-level repair prompts as in "Automated Program Repair in the Era of Large
Pre-trained Language Models" (Xia, Wei, Zhang, ICSE 2023: single-hunk infilling beside
whole-function generation) and aider's edit formats (whole vs. search/replace).
"""

from __future__ import annotations

import ast
import difflib
import re
import textwrap
from dataclasses import dataclass

from codur.patch.additions import merge
from codur.patch.splice import FunctionSpan, code_blocks, splice

#: A function longer than this (lines) is shown as a window and answered with an edit of it;
#: shorter ones are rewritten whole. Measured on bench/real (README "Windows").
WINDOW_MIN_LINES = 40
#: Longest window, lines.
WINDOW_LINES = 16
#: Lines of the function shown before and after the window (context the model reads, not rewrites).
MARGIN_BEFORE, MARGIN_AFTER = 12, 4
_ELLIPSIS = re.compile(r"^\s*(\.\.\.|#\s*\.\.\..*|# ?(rest|unchanged|remaining).*)$", re.IGNORECASE)


class NotApplied(ValueError):
    """A reply that cannot be applied; the message says why (shown in the sample's event)."""


@dataclass(frozen=True)
class Window:
    """Lines ``start``..``end`` (1-based, inclusive) of ``span``'s file, inside ``span``:
    whole statements, none indented less than the first (``indent``). ``head_end``: the last
    line of the function's signature."""

    span: FunctionSpan
    start: int
    end: int
    indent: str
    head_end: int

    @property
    def lines(self) -> int:
        return self.end - self.start + 1


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").split("\n")


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _function_node(tree: ast.AST, span: FunctionSpan) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno == span.def_line:
            return node
    return None


def window_of(text: str, span: FunctionSpan, suspicious: list[int], size: int = WINDOW_LINES) -> Window | None:
    """The window of ``span`` (a function of ``text``) around the first of ``suspicious``
    (lines, most suspicious first) inside its body: the innermost statement holding that
    line, grown by whole statements below and above (alternately) up to ``size`` lines,
    never reaching a line indented less than its first. A compound statement longer than
    ``size`` gives its header and the first statements of its body. None when no
    suspicious line is in the body or ``text`` does not parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    node = _function_node(tree, span)
    if node is None or not node.body:
        return None
    body = node.body
    first = body[0]
    if (len(body) > 1 and isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        first = body[1]  # the docstring is not rewritten
    lo, hi = first.lineno, node.end_lineno or span.end
    inside = [ln for ln in suspicious if lo <= ln <= hi]
    line = inside[0] if inside else None
    if line is None:
        return None
    stmts = [s for s in ast.walk(node) if isinstance(s, ast.stmt) and s is not node and s.lineno >= lo]
    starts = sorted({s.lineno for s in stmts})
    ends = sorted({s.end_lineno or s.lineno for s in stmts})
    text_lines = _lines(text)
    around = [s for s in stmts if s.lineno <= line <= (s.end_lineno or s.lineno)]
    if not around:  # a comment or a blank line: the statement nearest to it
        around = [min(stmts, key=lambda s: abs(s.lineno - line))]
    holder = min(around, key=lambda s: (s.end_lineno or s.lineno) - s.lineno)
    start, end = holder.lineno, holder.end_lineno or holder.lineno
    base = len(_indent(text_lines[start - 1]))

    def fits(a: int, b: int, floor: int) -> bool:
        return all(len(_indent(x)) >= floor for x in text_lines[a - 1: b] if x.strip())

    if end - start + 1 > size:  # a long compound statement: its header and what fits of its body
        end = max([e for e in ends if start <= e < start + size and e >= line] or [max(line, start)])
    grew = True
    while grew:
        grew = False
        below = [e for e in ends if e > end and e - start + 1 <= size and fits(end + 1, e, base)]
        if below:
            end, grew = below[0], True
        above = [s for s in reversed(starts) if s < start and end - s + 1 <= size
                 and fits(s, end, len(_indent(text_lines[s - 1])))]
        if above:
            start, grew = above[0], True
            base = len(_indent(text_lines[start - 1]))
    return Window(span, start, end, _indent(text_lines[start - 1]), node.body[0].lineno - 1)


def source(text: str, window: Window) -> str:
    """The window's lines, dedented by its function's indentation (as the excerpt shows them)."""
    cut = len(window.span.indent)
    return "\n".join(x[cut:] for x in _lines(text)[window.start - 1: window.end])


def excerpt(text: str, window: Window) -> str:
    """The function as the model sees it: the signature, ``...`` for lines left out, up to
    :data:`MARGIN_BEFORE` lines before the window, the window, :data:`MARGIN_AFTER` after,
    dedented by the function's indentation."""
    span, lines = window.span, _lines(text)
    cut = len(span.indent)
    head_end = max(span.def_line, window.head_end)  # a signature may take several lines
    show = list(range(span.start, head_end + 1))
    show += [n for n in range(max(head_end + 1, window.start - MARGIN_BEFORE),
                              min(span.end, window.end + MARGIN_AFTER) + 1) if n not in show]
    out, last = [], None
    for n in show:
        if last is not None and n > last + 1:
            out.append(" " * 4 + "...")
        out.append(lines[n - 1][cut:])
        last = n
    if last is not None and last < span.end:
        out.append(" " * 4 + "...")
    return "\n".join(out)


def _trim(block: list[str], original: list[str], window: Window) -> tuple[list[str], int, int]:
    """The reply's lines without ``...`` lines at either end, and the lines of the file they
    replace: the window, widened to the function's lines the reply repeats at either end
    (a model often copies a line of context before or after the window), or narrowed when
    the reply leaves out unchanged lines at either end (found by aligning the reply's lines
    with the window's, :class:`difflib.SequenceMatcher`)."""
    while block and (not block[0].strip() or _ELLIPSIS.match(block[0])):
        block.pop(0)
    while block and (not block[-1].strip() or _ELLIPSIS.match(block[-1])):
        block.pop()
    start, end = window.start, window.end
    if not block:
        return block, start, end
    first, last = block[0].strip(), block[-1].strip()
    inside = {x.strip() for x in original[start - 1: end]}
    before = range(start - 1, max(window.span.def_line, start - MARGIN_BEFORE) - 1, -1)
    after = range(end + 1, min(window.span.end, end + MARGIN_AFTER) + 1)
    wide_start = next((n for n in before if first not in inside and original[n - 1].strip() == first), None)
    wide_end = next((n for n in after if last not in inside and original[n - 1].strip() == last), None)
    if wide_start is not None or wide_end is not None:
        return block, wide_start or start, wide_end or end
    ours = [x.strip() or f"\0{i}" for i, x in enumerate(original[start - 1: end])]  # blank lines never match
    theirs = [x.strip() or f"\1{i}" for i, x in enumerate(block)]
    matched = [m for m in difflib.SequenceMatcher(None, ours, theirs, autojunk=False).get_matching_blocks() if m.size]
    if matched:
        head = max(0, matched[0].a - matched[0].b)  # window lines before the reply's first line
        tail = max(0, (len(ours) - matched[-1].a - matched[-1].size) - (len(theirs) - matched[-1].b - matched[-1].size))
        start, end = start + head, max(start + head, end - tail)
    return block, start, end


def apply_lines(text: str, window: Window, reply: str) -> tuple[str, list[str]]:
    """``text`` with the window's lines replaced by the reply's first fenced block,
    re-indented to the window (the block's first line's indentation becomes the window's).
    A block that defines the whole function is spliced as the function
    (:func:`codur.patch.splice.splice`); imports written before the window's lines, and
    every later block that parses (a helper, a constant, an import), are added to the
    module (:func:`codur.patch.additions.merge`). Returns (new text, functions changed).

    Raises:
        NotApplied: no code block, or the result does not compile.
    """
    span = window.span
    blocks = [b for b in code_blocks(reply) if b.strip()]
    if not blocks:
        raise NotApplied("no code in the reply")
    newline = "\r\n" if "\r\n" in text else "\n"
    original = _lines(text)
    first = blocks[0].replace("\r\n", "\n")
    if re.search(rf"^\s*(async\s+)?def\s+{re.escape(span.name)}\s*\(", first, re.M) and not re.match(
            rf"\s*(async\s+)?def\s+{re.escape(span.name)}\s*\(", original[window.start - 1]):
        whole = splice(text, span, f"```python\n{first}\n```")  # the function rewritten whole after all
        if whole is not None:
            return _with_additions(whole, span, blocks[1:], newline), [span.qualname]
        raise NotApplied(f"the reply rewrites `{span.name}` but it does not compile")
    block = first.split("\n")
    extra: list[str] = []
    if window.indent:  # unindented imports before the window's (indented) lines belong to the module
        while block and (not block[0].strip() or re.match(r"(import|from)\s+\w", block[0])):
            extra.append(block.pop(0))
    block, start, end = _trim(block, original, window)
    if not block:
        raise NotApplied("the reply's block holds no code for the window")
    own = _indent(block[0])
    target = _indent(original[start - 1])
    fixed = [(target + x[len(own):] if x.startswith(own) else target + x.lstrip()) if x.strip() else ""
             for x in block]
    new = "\n".join(original[: start - 1] + fixed + original[end:])
    new = _with_additions(new, span, ["\n".join(extra), *blocks[1:]], "\n")
    try:
        compile(new, span.file or "<candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        if "```" not in reply:
            raise NotApplied("no code block in the reply (its text does not compile as the lines)") from exc
        raise NotApplied(f"the window's rewrite does not compile: {exc.msg if isinstance(exc, SyntaxError) else exc}"
                         f" (line {getattr(exc, 'lineno', '?')})") from exc
    return (new.replace("\n", newline) if newline != "\n" else new), [span.qualname]


def _with_additions(text: str, span: FunctionSpan, blocks: list[str], newline: str) -> str:
    """``text`` with the module-level code of ``blocks`` merged in (blocks that do not parse
    are left out)."""
    plain = text.replace("\r\n", "\n")
    for block in blocks:
        code = textwrap.dedent(block.replace("\r\n", "\n")).strip()
        if code:
            plain = merge(plain, span, code, done={span.name}) or plain
    return plain.replace("\n", newline) if newline != "\n" else plain
