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
from dataclasses import dataclass

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


@dataclass(frozen=True)
class _Fix:
    """What every addition of one reply is placed by: the function the reply fixes
    (``anchor``), the functions already spliced (``done``: skipped), and whether the reply
    rewrote the whole module (``module``: its top-level functions are never methods)."""

    anchor: FunctionSpan
    done: frozenset[str] | set[str]
    module: bool


def _before_anchor(text: str, tree: ast.Module, fix: _Fix, code: str) -> str:
    """``text`` with ``code`` inserted before the top-level statement holding the fixed
    function (unchanged when that function is gone)."""
    here = _find(text, fix.anchor.qualname)
    top = _holder(tree, here.start) if here else None
    return _insert(text, _start(top), code, gap=2) if top is not None else text


def _import(text: str, tree: ast.Module, code: str) -> str:
    """``text`` with the import ``code`` after its last top-level import (else after the
    module docstring, else at the top)."""
    imports = [s for s in tree.body if isinstance(s, ast.Import | ast.ImportFrom)]
    doc = (tree.body[0] if tree.body and isinstance(tree.body[0], ast.Expr)
           and isinstance(getattr(tree.body[0], "value", None), ast.Constant) else None)
    after = imports[-1].end_lineno if imports else (doc.end_lineno if doc else 0)
    return _insert(text, after + 1, code)


def _assigned(node: ast.stmt) -> set[str]:
    """The plain names an assignment binds."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {t.id for t in targets if isinstance(t, ast.Name)}


def _constant(text: str, tree: ast.Module, node: ast.Assign | ast.AnnAssign, code: str, fix: _Fix) -> str:
    """``text`` with the constant ``code`` replacing the module's assignment to the same
    names, else before the fixed function's top-level statement; an assignment to anything
    but plain names is left out."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if not all(isinstance(t, ast.Name) for t in targets):
        return text
    names = _assigned(node)
    same = next((s for s in tree.body if isinstance(s, ast.Assign | ast.AnnAssign) and _assigned(s) == names), None)
    if same is None:
        return _before_anchor(text, tree, fix, code)
    lines = text.split("\n")
    return "\n".join(lines[: same.lineno - 1] + code.split("\n") + lines[same.end_lineno:])


def _function(text: str, tree: ast.Module, node: ast.FunctionDef | ast.AsyncFunctionDef, code: str,
              fix: _Fix) -> str:
    """``text`` with the function ``code`` replacing the method or module function of its
    name, joining the fixed method's class, or before the fixed function's top-level statement."""
    if node.name in fix.done:
        return text
    anchor = fix.anchor
    cls = anchor.qualname.rsplit(".", 1)[0] if "." in anchor.qualname and "<locals>" not in anchor.qualname else ""
    args = getattr(node, "args", None)
    first = args.args[0].arg if args is not None and args.args else ""
    if cls and not fix.module:
        existing = _find(text, f"{cls}.{node.name}")
        if existing is not None:
            return _replace(text, existing, code)
        if first in ("self", "cls"):
            here = _find(text, anchor.qualname)
            return _insert(text, here.start, code, here.indent, gap=1) if here else text
    existing = _find(text, node.name)
    if existing is not None:
        return _replace(text, existing, code)
    return _before_anchor(text, tree, fix, code)


def _class(text: str, tree: ast.Module, node: ast.ClassDef, code: str, fix: _Fix) -> str:
    """``text`` with each method of the class ``code`` replacing the module's method of that
    name or joining its class; a new class goes before the fixed function's top-level statement."""
    ours = next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == node.name), None)
    if ours is None:
        return _before_anchor(text, tree, fix, code)
    code_lines = code.split("\n")
    for member in node.body:
        if not isinstance(member, _FUNCS) or member.name in fix.done:
            continue
        method = _src(code_lines, member)
        existing = _find(text, f"{node.name}.{member.name}")
        if existing is not None:
            text = _replace(text, existing, method)
            continue
        members = [s for s in functions(text) if s.qualname.startswith(f"{node.name}.")
                   and s.qualname.count(".") == 1]
        at = next((s for s in members if s.qualname == fix.anchor.qualname), members[-1] if members else None)
        if at is not None:
            text = _insert(text, at.start, method, at.indent, gap=1)
    return text


def _add(text: str, tree: ast.Module, node: ast.stmt, code: str, fix: _Fix) -> str:
    """``text`` with one top-level statement of the reply (``node``, its source ``code``)
    added as the module docstring says; anything else is left out."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return _import(text, tree, code)
    if isinstance(node, ast.Assign | ast.AnnAssign):
        return _constant(text, tree, node, code, fix)
    if isinstance(node, _FUNCS):
        return _function(text, tree, node, code, fix)
    if isinstance(node, ast.ClassDef):
        return _class(text, tree, node, code, fix)
    return text


def merge(text: str, anchor: FunctionSpan, code: str, done: set[str] = frozenset(),
          module: bool = False) -> str | None:
    """``text`` (``\\n`` line endings) with the module-level code of ``code`` (a reply's
    block, dedented) merged in as the module docstring says. ``anchor`` is the function the
    reply fixes (found again by its qualified name: ``text`` may have changed since it was
    taken); functions named in ``done`` (already spliced) are skipped. ``module``: ``code``
    is the whole module rewritten (its top-level functions are module functions, never
    methods of the anchor's class). None when ``code`` or ``text`` does not parse, or an
    insertion left the module unparsable."""
    fix, code_lines = _Fix(anchor, done, module), code.split("\n")
    try:
        for node in parse_ast(code).body:
            tree = parse_ast(text)
            if ast.dump(node) not in {ast.dump(s) for s in tree.body}:
                text = _add(text, tree, node, _src(code_lines, node), fix)
    except SyntaxError:
        return None
    return text
