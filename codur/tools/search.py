"""Search tools: grep with a regex over the repo, and find where a symbol is defined (via ``ast``)."""

from __future__ import annotations

import ast
import re
import time

import regex

from codur.core.pyast import parse_ast
from codur.tools.analysis import signature_of, span
from codur.tools.context import ToolContext, ToolError
from codur.tools.reading import MAX_READ_BYTES, decode_source, read_bytes_bounded
from codur.tools.registry import TaskType, tool
from codur.tools.visibility import glob_matcher

T = TaskType
SEARCH_TASKS = (T.CODE_FIX, T.CODE_GENERATION, T.CODE_ANALYSIS, T.EXPLANATION, T.REFACTOR, T.DOCUMENTATION)
MAX_LINE_CHARS = 200
MAX_HITS = 100
MAX_SHOWN_LINES = 30
#: Wall time for one grep's regex matching, over all files, seconds: a model-chosen
#: pattern such as ``(a+)+$`` backtracks exponentially.
GREP_TIMEOUT_S = 10.0


def _texts(ctx: ToolContext, path: str, glob: str):
    """(rel, text) of the visible text files under ``path`` matching ``glob``; binary and
    over-limit files are skipped."""
    matches = glob_matcher(glob)
    for p in ctx.walk(path, visible=True):
        rel = ctx.rel(p)
        if not matches(rel) or p.is_symlink() and not p.resolve().is_relative_to(ctx.root):
            continue
        try:
            data = read_bytes_bounded(p, MAX_READ_BYTES, rel)
        except ToolError:  # over the limit, a FIFO, a device, unreadable
            continue
        if b"\0" not in data[:8192]:
            try:
                yield rel, decode_source(data, rel)
            except ToolError:
                yield rel, data.decode("utf-8", "replace")


@tool(scenarios=SEARCH_TASKS)
def grep(ctx: ToolContext, pattern: str, path: str = ".", glob: str = "*", ignore_case: bool = False) -> str:
    """Search files for a regex; glob filters files, e.g. '*.py'. Prints path:line: text."""
    try:
        re.compile(pattern)  # Python's own syntax and error messages
        rx = regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)
    except (re.error, regex.error) as exc:
        raise ToolError(
            f"invalid regex {pattern!r}: {exc}; escape special characters such as ( [ . * with a backslash"
        ) from None
    whole = regex.compile(pattern, rx.flags | regex.MULTILINE)  # a quick test of the whole file first
    deadline = time.monotonic() + GREP_TIMEOUT_S
    hits: list[str] = []
    total = 0
    try:
        for rel, text in _texts(ctx, path, glob):
            if not whole.search(text, timeout=_left(deadline)):
                continue
            for n, line in enumerate(text.splitlines(), 1):
                if rx.search(line, timeout=_left(deadline)):
                    total += 1
                    if len(hits) < MAX_HITS:
                        hits.append(f"{rel}:{n}: {line.strip()[:MAX_LINE_CHARS]}")
    except TimeoutError:
        raise ToolError(f"the regex {pattern!r} ran over {GREP_TIMEOUT_S:g}s (catastrophic backtracking?); "
                        "simplify it, e.g. no nested repeats like (a+)+, or narrow the path") from None
    if not hits:
        return f"no match for {pattern!r} under {path} (glob {glob!r})"
    more = f"\n… {total - len(hits)} more matches; narrow the path or the pattern" if total > len(hits) else ""
    return "\n".join(hits) + more


def _left(deadline: float) -> float:
    """Seconds left until ``deadline`` (monotonic), at least a millisecond; TimeoutError past it."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return max(left, 0.001)


def _defines(node: ast.stmt, name: str, variables: bool) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if variables and isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Name) and t.id == name for t in targets)
    return False


def _definitions(tree: ast.Module, parts: list[str]) -> list[tuple[ast.stmt, str | None]]:
    """(node, enclosing class) defining ``parts``: 'name' at module level or as a method
    of a module-level class, or 'Class.method'."""
    if len(parts) == 1:
        found: list[tuple[ast.stmt, str | None]] = [(n, None) for n in tree.body if _defines(n, parts[0], True)]
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            found += [(n, cls.name) for n in cls.body if _defines(n, parts[0], False)]
        return found
    body: list[ast.stmt] = tree.body
    for name in parts[:-1]:
        cls = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == name), None)
        if cls is None:
            return []
        body = cls.body
    return [(n, parts[-2]) for n in body if _defines(n, parts[-1], True)]


@tool(scenarios=SEARCH_TASKS)
def find_definition(ctx: ToolContext, symbol: str, path: str = ".") -> str:
    """Show the code defining a function, class, 'Class.method' or module variable."""
    parts = symbol.strip().split(".")
    if not all(p.isidentifier() for p in parts):
        raise ToolError(f"{symbol!r} is not a Python name; give e.g. 'parse' or 'Parser.parse'")
    shown = []
    for rel, text in _texts(ctx, path, "*.py"):
        if parts[-1] not in text:
            continue
        try:
            tree = parse_ast(text)
        except SyntaxError:
            continue
        lines = text.splitlines()
        for node, owner in _definitions(tree, parts):
            start, end = span(node)
            head = "variable" if isinstance(node, (ast.Assign, ast.AnnAssign)) else signature_of(node)
            head += f" (in class {owner})" if owner else ""
            last_shown = min(end, start + MAX_SHOWN_LINES - 1)
            code = "\n".join(f"{k:4d}| {lines[k - 1]}" for k in range(start, last_shown + 1))
            hidden = end - start + 1 - MAX_SHOWN_LINES
            cut = f"\n     … {hidden} more lines" if hidden > 0 else ""
            shown.append(f"{rel}:{start}-{end}: {head}\n{code}{cut}")
    if not shown:
        return f"no definition of {symbol!r} under {path}; try grep"
    return "\n\n".join(shown)
