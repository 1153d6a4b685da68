"""What a reply adds beside the function it fixes: imports, constants, helpers, sibling methods.

Real fixes often add a line at the top of the module (``import re``), a module constant, a
helper function, or change ``__init__`` beside the method they fix. A reply's code other
than the rewritten function is merged into the module by :func:`merge`, statement by
statement:

- an import not already at the module's top level goes after its last top-level import;
- a constant (an assignment to plain names) replaces the module's assignment to the same
  name when it differs, else goes before the top-level statement holding the fixed function;
- a function: when the fixed function is a method, a ``def`` whose name is a method of its
  class, or whose first parameter is ``self`` or ``cls``, replaces that method or joins the
  class before the fixed method; otherwise it replaces the module function of that name, or
  goes before the top-level statement holding the fixed function (a new helper);
- a class of the module's: each method in it replaces the method of that name or joins the
  class; a new class goes before the fixed function's top-level statement;
- anything else (an expression, a docstring, ``...``, a call) is left out.

Code equal (by AST) to what the module has is left as it is, so a reply that repeats the
module's imports and constants (the prompt shows them) adds nothing.
"""

from __future__ import annotations

import ast
import textwrap

from codur.core.pyast import parse_ast
from codur.patch.splice import FunctionSpan, _indent_like, functions, normalized, source_of, splice

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _src(code_lines: list[str], node: ast.stmt) -> str:
    start = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])
    return textwrap.dedent("\n".join(code_lines[start - 1: node.end_lineno]))


def _start(node: ast.stmt) -> int:
    return min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])


def _insert(text: str, before: int, code: str, indent: str = "", gap: int = 0) -> str:
    """``text`` with ``code`` (dedented) inserted before line ``before`` (1-based), indented by
    ``indent``, followed by ``gap`` blank lines."""
    lines = text.split("\n")
    block = _indent_like(code, indent).split("\n") + [""] * gap
    return "\n".join(lines[: before - 1] + block + lines[before - 1:])


def _find(text: str, qualname: str) -> FunctionSpan | None:
    return next((s for s in functions(text) if s.qualname == qualname), None)


def _replace(text: str, existing: FunctionSpan, code: str) -> str:
    """``text`` with the function ``existing`` replaced by ``code``, unless they are equal
    by AST (a reply that repeats a function changes nothing)."""
    if normalized(source_of(text, existing)) == normalized(code):
        return text
    return splice(text, existing, f"```python\n{code}\n```") or text


def _holder(tree: ast.Module, line: int) -> ast.stmt | None:
    """The module's top-level statement holding ``line``."""
    return next((s for s in tree.body if _start(s) <= line <= (s.end_lineno or s.lineno)), None)


def _function(text: str, tree: ast.Module, anchor: FunctionSpan, node: ast.stmt, code: str, module: bool) -> str:
    cls = anchor.qualname.rsplit(".", 1)[0] if "." in anchor.qualname and "<locals>" not in anchor.qualname else ""
    args = getattr(node, "args", None)
    first = args.args[0].arg if args is not None and args.args else ""
    if cls and not module:
        existing = _find(text, f"{cls}.{node.name}")
        if existing is not None:
            return _replace(text, existing, code)
        if first in ("self", "cls"):
            here = _find(text, anchor.qualname)
            return _insert(text, here.start, code, here.indent, gap=1) if here else text
    existing = _find(text, node.name)
    if existing is not None:
        return _replace(text, existing, code)
    here = _find(text, anchor.qualname)
    top = _holder(tree, here.start) if here else None
    return _insert(text, _start(top), code, gap=2) if top is not None else text


def _class(text: str, tree: ast.Module, anchor: FunctionSpan, node: ast.ClassDef, code: str, done: set[str]) -> str:
    ours = next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == node.name), None)
    if ours is None:
        here = _find(text, anchor.qualname)
        top = _holder(tree, here.start) if here else None
        return _insert(text, _start(top), code, gap=2) if top is not None else text
    code_lines = code.split("\n")
    for member in node.body:
        if not isinstance(member, _FUNCS) or member.name in done:
            continue
        method = _src(code_lines, member)
        existing = _find(text, f"{node.name}.{member.name}")
        if existing is not None:
            text = _replace(text, existing, method)
            continue
        members = [s for s in functions(text) if s.qualname.startswith(f"{node.name}.")
                   and s.qualname.count(".") == 1]
        at = next((s for s in members if s.qualname == anchor.qualname), members[-1] if members else None)
        if at is not None:
            text = _insert(text, at.start, method, at.indent, gap=1)
    return text


def merge(text: str, anchor: FunctionSpan, code: str, done: set[str] = frozenset(),
          module: bool = False) -> str | None:
    """``text`` (``\\n`` line endings) with the module-level code of ``code`` (a reply's
    block, dedented) merged in as the module docstring says. ``anchor`` is the function the
    reply fixes (found again by its qualified name: ``text`` may have changed since it was
    taken); functions named in ``done`` (already spliced) are skipped. ``module``: ``code``
    is the whole module rewritten (its top-level functions are module functions, never
    methods of the anchor's class). None when ``code`` or ``text`` does not parse."""
    try:
        block = parse_ast(code)
    except SyntaxError:
        return None
    try:
        return _merge(text, anchor, block, code.split("\n"), done, module)
    except SyntaxError:  # an insertion left the module unparsable
        return None


def _merge(text: str, anchor: FunctionSpan, block: ast.Module, code_lines: list[str], done: set[str],
           module: bool) -> str | None:
    for node in block.body:
        try:
            tree = parse_ast(text)
        except SyntaxError:
            return None
        have = {ast.dump(s) for s in tree.body}
        if ast.dump(node) in have:
            continue
        piece = _src(code_lines, node)
        if isinstance(node, ast.Import | ast.ImportFrom):
            imports = [s for s in tree.body if isinstance(s, ast.Import | ast.ImportFrom)]
            doc = (tree.body[0] if tree.body and isinstance(tree.body[0], ast.Expr)
                   and isinstance(getattr(tree.body[0], "value", None), ast.Constant) else None)
            after = imports[-1].end_lineno if imports else (doc.end_lineno if doc else 0)
            text = _insert(text, after + 1, piece)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not all(isinstance(t, ast.Name) for t in targets):
                continue
            names = {t.id for t in targets}
            same = next((s for s in tree.body if isinstance(s, ast.Assign | ast.AnnAssign)
                         and {t.id for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
                              if isinstance(t, ast.Name)} == names), None)
            lines = text.split("\n")
            if same is not None:
                text = "\n".join(lines[: same.lineno - 1] + piece.split("\n") + lines[same.end_lineno:])
                continue
            here = _find(text, anchor.qualname)
            top = _holder(tree, here.start) if here else None
            if top is not None:
                text = _insert(text, _start(top), piece, gap=2)
        elif isinstance(node, _FUNCS):
            if node.name not in done:
                text = _function(text, tree, anchor, node, piece, module)
        elif isinstance(node, ast.ClassDef):
            text = _class(text, tree, anchor, node, piece, done)
    return text
