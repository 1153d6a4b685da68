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

from codur.core.pyast import BOM, parse_ast
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
        tree = parse_ast(text)
    except SyntaxError:
        return None
    node = _function_node(tree, span)
    if node is None or not node.body:
        return None
    lo, hi = _rewritable(node, span)
    line = next((ln for ln in suspicious if lo <= ln <= hi), None)
    if line is None:
        return None
    stmts = [s for s in ast.walk(node) if isinstance(s, ast.stmt) and s is not node and s.lineno >= lo]
    text_lines = _lines(text)
    start, end = _grown(text_lines, stmts, line, size)
    return Window(span, start, end, _indent(text_lines[start - 1]), node.body[0].lineno - 1)


def _rewritable(node: ast.FunctionDef | ast.AsyncFunctionDef, span: FunctionSpan) -> tuple[int, int]:
    """The first and last line (1-based) of ``node``'s body a window may cover: the
    docstring is not rewritten."""
    body = node.body
    first = body[0]
    if (len(body) > 1 and isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        first = body[1]
    return first.lineno, node.end_lineno or span.end


def _innermost(stmts: list[ast.stmt], line: int) -> ast.stmt:
    """The shortest of ``stmts`` holding ``line``; for a comment or a blank line, the
    statement starting nearest to it."""
    around = [s for s in stmts if s.lineno <= line <= (s.end_lineno or s.lineno)]
    if not around:
        around = [min(stmts, key=lambda s: abs(s.lineno - line))]
    return min(around, key=lambda s: (s.end_lineno or s.lineno) - s.lineno)


def _fits(text_lines: list[str], a: int, b: int, floor: int) -> bool:
    """No non-blank line of ``a``..``b`` (1-based, inclusive) is indented less than ``floor`` characters."""
    return all(len(_indent(x)) >= floor for x in text_lines[a - 1: b] if x.strip())


def _grown(text_lines: list[str], stmts: list[ast.stmt], line: int, size: int) -> tuple[int, int]:
    """The window's (start, end) lines: the innermost of ``stmts`` holding ``line`` (cut to
    its header and first statements when longer than ``size``), grown by whole statements
    below and above, alternately, up to ``size`` lines, never reaching a line indented less
    than its first."""
    starts = sorted({s.lineno for s in stmts})
    ends = sorted({s.end_lineno or s.lineno for s in stmts})
    holder = _innermost(stmts, line)
    start, end = holder.lineno, holder.end_lineno or holder.lineno
    base = len(_indent(text_lines[start - 1]))
    if end - start + 1 > size:  # a long compound statement: its header and what fits of its body
        end = max([e for e in ends if start <= e < start + size and e >= line] or [max(line, start)])
    grew = True
    while grew:
        grew = False
        below = [e for e in ends if e > end and e - start + 1 <= size and _fits(text_lines, end + 1, e, base)]
        if below:
            end, grew = below[0], True
        above = [s for s in reversed(starts) if s < start and end - s + 1 <= size
                 and _fits(text_lines, s, end, len(_indent(text_lines[s - 1])))]
        if above:
            start, grew = above[0], True
            base = len(_indent(text_lines[start - 1]))
    return start, end


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


def _chunk(block: list[str], shown: list[str]) -> list[str]:
    """The part of the reply's lines that rewrites the window: split at ``...`` lines (a
    model may echo the excerpt, imports and signature included), the part sharing most lines
    with the lines the excerpt ``shown``; blank lines at either end dropped."""
    chunks, part = [], []
    for x in block:
        if _ELLIPSIS.match(x):
            chunks.append(part)
            part = []
        else:
            part.append(x)
    chunks.append(part)
    known = {x.strip() for x in shown if x.strip()}
    best = max(chunks, key=lambda c: (sum(x.strip() in known for x in c), len(c)))
    while best and not best[0].strip():
        best.pop(0)
    while best and not best[-1].strip():
        best.pop()
    return best


def _align(block: list[str], original: list[str], window: Window) -> tuple[list[str], int, int]:
    """The reply's lines re-indented, and the lines of the file they replace: aligned with
    the lines the excerpt shows (:class:`difflib.SequenceMatcher`), the reply's first and
    last lines that match give where it starts and ends (a model may repeat a line of context
    before or after the window, or leave out its unchanged lines at either end), the reply's
    lines before the first match (after the last) replacing as many lines of the window;
    with no line in common, the window. The indentation shift is the first matched line's
    (else the first line's against the window's)."""
    lo = max(window.head_end + 1, window.start - MARGIN_BEFORE)
    hi = min(window.span.end, window.end + MARGIN_AFTER)
    shown = original[lo - 1: hi]
    ours = [x.strip() or f"\0{i}" for i, x in enumerate(shown)]  # blank lines never match
    theirs = [x.strip() or f"\1{i}" for i, x in enumerate(block)]
    matched = [m for m in difflib.SequenceMatcher(None, ours, theirs, autojunk=False).get_matching_blocks() if m.size]
    start, end = window.start, window.end
    shift = len(_indent(original[start - 1])) - len(_indent(block[0]))
    if matched:
        head, last = matched[0], matched[-1]
        # the reply's unmatched first (last) lines replace as many lines, but only lines of the
        # window: before it, they are more likely a statement the fix adds
        start = lo + head.a - head.b
        start = max(start, window.start) if head.b else max(lo, start)
        tail = len(theirs) - last.b - last.size
        end = lo + last.a + last.size - 1 + tail
        end = max(start - 1, min(end, window.end) if tail else min(hi, end))
        shift = len(_indent(shown[head.a])) - len(_indent(block[head.b]))
        if start > window.end or end < window.start - 1:  # it rewrites context only: the window stays
            start, end = window.start, window.end
    tabs = "\t" in "".join(_indent(x) for x in original[start - 1: end + 1])
    fixed = []
    for x in block:
        width = len(_indent(x)) + shift
        fixed.append("" if not x.strip() else (_indent(original[start - 1]) + x.lstrip()) if tabs or width < 0
                     else " " * width + x.lstrip())
    return fixed, start, end


def apply_lines(text: str, window: Window, reply: str) -> tuple[str, list[str]]:
    """``text`` with the window's lines replaced by the reply's first fenced block, aligned
    with the excerpt and re-indented (:func:`_align`; a reply that echoes the excerpt is cut
    to its part around the window, :func:`_chunk`). A block that defines the whole function
    (no ``...`` in it) is spliced as the function
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
    if re.search(rf"^\s*(async\s+)?def\s+{re.escape(span.name)}\s*\(", first, re.M) and not any(
            _ELLIPSIS.match(x) for x in first.split("\n")):  # a whole function, not the excerpt echoed
        whole = splice(text, span, f"```python\n{first}\n```")  # the function rewritten whole after all
        if whole is not None:
            return _with_additions(whole, span, blocks[1:], newline), [span.qualname]
        raise NotApplied(f"the reply rewrites `{span.name}` but it does not compile")
    block = first.split("\n")
    extra: list[str] = []
    if window.indent:  # unindented imports before the window's (indented) lines belong to the module
        while block and (not block[0].strip() or re.match(r"(import|from)\s+\w", block[0])):
            extra.append(block.pop(0))
    shown = original[max(window.head_end, window.start - MARGIN_BEFORE - 1): window.end + MARGIN_AFTER]
    block = _chunk(block, shown)
    if not block:
        raise NotApplied("the reply's block holds no code for the window")
    fixed, start, end = _align(block, original, window)
    new = "\n".join(original[: start - 1] + fixed + original[end:])
    new = _with_additions(new, span, ["\n".join(extra), *blocks[1:]], "\n")
    try:
        compile(new.removeprefix(BOM), span.file or "<candidate>", "exec", dont_inherit=True)
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
