"""Move named test functions from one version of a test file into another, by the AST.

A name is ``func``, ``Class`` or ``Class.method`` (top-level definitions and methods of
top-level classes). :func:`take` copies each named definition from the newer file into the
older one: it replaces the definition of the same name, or is appended (a method at the
end of its class, else a top-level definition before the first definition that follows
it in the newer file). The names a taken definition uses that the newer file imports and
the older one does not are imported after the older file's imports.
"""

from __future__ import annotations

import ast


class SpliceError(ValueError):
    """A named definition is missing from the file it must come from."""


def _span(node: ast.AST) -> tuple[int, int]:
    """0-based [start, end) line span of a definition, its decorators included."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return first - 1, node.end_lineno


def _find(tree: ast.Module, name: str) -> ast.AST | None:
    """The top-level definition ``name`` or the method ``Class.method``; None when absent."""
    head, _, rest = name.partition(".")
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == head:
            if not rest:
                return node
            if isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.name == rest:
                        return sub
    return None


def _bound(node: ast.Import | ast.ImportFrom) -> list[tuple[str, str, str]]:
    """(name bound, what is imported, one-name import statement) for each name an import
    statement binds; ``import a.b`` binds ``a`` but imports ``a.b``."""
    out = []
    for a in node.names:
        alias = f" as {a.asname}" if a.asname else ""
        if isinstance(node, ast.Import):
            out.append((a.asname or a.name.split(".")[0], a.name + alias, f"import {a.name}{alias}"))
        else:
            source = f"{'.' * node.level}{node.module or ''}"
            out.append((a.asname or a.name, f"{source}:{a.name}{alias}", f"from {source} import {a.name}{alias}"))
    return out


def _missing_imports(old_tree: ast.Module, new_tree: ast.Module, used: set[str]) -> list[str]:
    """One-name imports of the newer file for the names the taken code uses and the older file
    does not import (a name the older module cannot give stays out: only used names come)."""
    have = {what for n in old_tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) for _, what, _ in _bound(n)}
    bound = {name for n in old_tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) for name, _, _ in _bound(n)}
    return [stmt for n in new_tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
            for name, what, stmt in _bound(n) if name in used and what not in have
            and (name not in bound or isinstance(n, ast.Import))]


def _reindent(block: list[str], indent: str) -> list[str]:
    """``block`` with its common leading indentation replaced by ``indent``."""
    cur = min((len(x) - len(x.lstrip()) for x in block if x.strip()), default=0)
    return [indent + x[cur:] if x.strip() else x for x in block]


def _insert_point(new_tree: ast.Module, old_tree: ast.Module, node: ast.AST) -> int:
    """0-based line of the older file before which a new top-level ``node`` goes: before the
    first definition that follows it in the newer file and exists in the older one (so a
    class is defined before the code that uses it), else the end of the file."""
    after = new_tree.body[new_tree.body.index(node) + 1:]
    for later in after:
        if isinstance(later, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                (there := _find(old_tree, later.name)) is not None:
            return _span(there)[0]
    return 10**9


def take(old: str, new: str, names: list[str]) -> str:
    """``old`` with each of ``names`` defined as in ``new``, and ``new``'s missing imports added.

    Raises:
        SpliceError: a name is not defined in ``new``.
    """
    new_lines = new.splitlines()
    new_tree = ast.parse(new)
    text, used = old, set()
    for name in names:
        node = _find(new_tree, name)
        if node is None:
            raise SpliceError(f"{name} is not in the newer file")
        start, end = _span(node)
        block = new_lines[start:end]
        used |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        lines, tree = text.splitlines(), ast.parse(text)
        target = _find(tree, name)
        if target is not None:
            t0, t1 = _span(target)
            indent = lines[t0][:len(lines[t0]) - len(lines[t0].lstrip())]
            lines[t0:t1] = _reindent(block, indent)
        elif "." in name and (cls := _find(tree, name.split(".")[0])) is not None:
            body_indent = next((lines[n.lineno - 1][:n.col_offset] for n in cls.body), "    ")
            lines[cls.end_lineno:cls.end_lineno] = ["", *_reindent(block, body_indent)]
        elif "." in name:
            raise SpliceError(f"the class of {name} is not in the older file; take the whole class")
        else:
            at = _insert_point(new_tree, tree, node)
            lines[at:at] = [*block, "", ""] if at < len(lines) else ["", "", *block]
        text = "\n".join(lines) + "\n"
    lines, tree = text.splitlines(), ast.parse(text)
    if missing := _missing_imports(tree, new_tree, used):
        last = max((n.end_lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))), default=0)
        lines[last:last] = missing
        text = "\n".join(lines) + "\n"
    return text
