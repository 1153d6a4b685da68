"""Analysis tools: the functions and classes of a module, read with ``ast`` (nothing is imported)."""

from __future__ import annotations

import ast

from codur.core.pyast import parse_ast
from codur.tools.context import ToolContext, ToolError
from codur.tools.registry import TaskType, tool

T = TaskType
Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
MAX_FILES = 200


def signature_of(node: Definition) -> str:
    """``def name(args) -> ret`` / ``class Name(bases)`` as written in the source."""
    if isinstance(node, ast.ClassDef):
        bases = ", ".join(ast.unparse(b) for b in [*node.bases, *node.keywords])
        return f"class {node.name}({bases})" if bases else f"class {node.name}"
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    ret = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{prefix} {node.name}({ast.unparse(node.args)}){ret}"


def span(node: ast.stmt) -> tuple[int, int]:
    """First and last line of a definition, its decorators included (1-based)."""
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return start, node.end_lineno or node.lineno


def parse_module(ctx: ToolContext, path: str) -> ast.Module:
    """The AST of a Python file of the repo.

    Raises:
        ToolError: unreadable (see :meth:`ToolContext.read_text`) or a syntax error.
    """
    source = ctx.read_text(path)
    try:
        return parse_ast(source, filename=path)
    except SyntaxError as exc:
        raise ToolError(f"{path}:{exc.lineno}: cannot parse: {exc.msg}") from None


def _outline(body: list[ast.stmt], indent: str = "") -> list[str]:
    lines = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start, end = span(node)
            lines.append(f"{indent}{start}-{end}: {signature_of(node)}")
            if isinstance(node, ast.ClassDef):
                lines.extend(_outline(node.body, indent + "    "))
    return lines


@tool(scenarios=(T.CODE_ANALYSIS, T.EXPLANATION, T.DOCUMENTATION, T.REFACTOR, T.CODE_FIX))
def list_symbols(ctx: ToolContext, path: str) -> str:
    """List classes, methods and functions of a .py file or directory, with line ranges."""
    files = [p for p in ctx.walk(path, visible=True) if p.suffix == ".py"]
    if not files:
        raise ToolError(f"no .py file at {path}")
    out = []
    for p in files[:MAX_FILES]:
        rel = ctx.rel(p)
        try:
            outline = _outline(parse_module(ctx, rel).body)
        except ToolError as exc:
            outline = [f"Error: {exc}"]
        if outline or len(files) == 1:
            out.append(f"{rel}:\n" + ("\n".join(f"  {line}" for line in outline) or "  (no functions or classes)"))
    if len(files) > MAX_FILES:
        out.append(f"… {len(files) - MAX_FILES} more files not listed; give a narrower path")
    return "\n".join(out) or f"no functions or classes under {path}"
