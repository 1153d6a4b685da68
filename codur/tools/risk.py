"""Risky code in a candidate patch: what a write adds that the allowlist does not hold.

An AST check of a Python file before and after a write (a model sample, an agent's edit):
the findings of the new text that the old one did not have. Every call, import and reference
is judged against an allowlist (:mod:`codur.tools.allowlist`: the module's own names, the repo's
own modules, builtins without I/O, pure standard-library modules), not a list of known bad
names, so ``platform.os.system``, ``logging.handlers.socket.create_connection``, ``_socket``,
``pickle.loads`` and ``os.__dict__.get('system')`` are all found. Names are resolved, not read
literally: every name a module binds through ``import x as y``, ``from x import y as z``, an
assignment (``s = os.system``, ``m = importlib.import_module('socket')``), or a string constant
(``MOD = 'soc' + 'ket'``) is followed to the qualified name it stands for, so ``import os as o;
o.system(...)``, ``getattr(os, 'system')``, ``__import__('os').system`` and ``builtins.eval`` are
found as ``os.system`` and ``eval``. Binding is flow-insensitive (a name bound anywhere in the
file counts everywhere), which errs towards flagging. A finding is ``<kind>: <what>``, the kind
``network``, ``process``, ``dynamic code`` (eval, exec, pickle, a computed import, ``getattr``
or key, ``__dict__`` and the other escapes), ``outside the repo`` / ``file access`` (``open`` on
a literal path outside the repo, or a computed one) or ``not on the allowlist``.

A reference counts, not only a call: ``map(os.system, cmds)`` is found. Such a write is
flagged and written only when approved (:meth:`ToolContext.write_many`): the setting
``allow_risky_patches``, or the user's answer under ``--confirm``. A text that does not parse
has no findings (the syntax check deals with it).
"""

from __future__ import annotations

import ast
from collections import Counter

from codur.core.pyast import parse_ast
from codur.tools.allowlist import BUILTIN_NAMES, ESCAPES, OWN, canonical, judge, kind

#: Calls that import a module by name: the name literal is resolved, a computed one is risky.
IMPORTERS = frozenset({"__import__", "importlib.import_module", "importlib.__import__"})
#: Calls that look an attribute up by name: a literal is resolved, a computed one is risky.
LOOKUPS = frozenset({"getattr", "setattr", "delattr", "operator.attrgetter", "operator.methodcaller"})
FILE_CALLS = frozenset({"open", "io.open"})


def findings(text: str, own: frozenset[str] = frozenset()) -> Counter[str]:
    """The constructs of Python source ``text`` the allowlist does not hold (see the module doc),
    counted; ``own``: the repo's top-level module names (:func:`codur.tools.allowlist.own_modules`)."""
    try:
        tree = parse_ast(text)
    except (SyntaxError, ValueError):
        return Counter()
    return _Finder(tree, own).found


def added(before: str | None, after: str, own: frozenset[str] = frozenset()) -> list[str]:
    """What ``after`` adds to ``before`` (None: a new file), sorted: e.g.
    ``["network: import socket", "process: os.system(...) (as platform.os.system)"]``."""
    new = findings(after, own) - findings(before or "", own)
    return sorted(new)


class _Finder:
    """Two passes over a module: the names it binds (to a fixpoint), then what it references."""

    def __init__(self, tree: ast.AST, own: frozenset[str]) -> None:
        self.own = own
        self.bound: dict[str, str] = {}    # local name -> qualified name it stands for
        self.strings: dict[str, str] = {}  # local name -> the string constant it holds
        self.local = _defined(tree)        # names the module defines itself
        self.found: Counter[str] = Counter()
        self._bind(tree)
        self._visit(tree)

    # names ------------------------------------------------------------------------------------
    def _bind(self, tree: ast.AST) -> None:
        assigns = self._bind_imports(tree)
        for _ in range(5):  # chains: a = os; b = a.system
            if not self._bind_assigns(assigns):
                break

    def _bind_imports(self, tree: ast.AST) -> list[tuple[str, ast.expr]]:
        """Bind the names ``tree``'s imports define; return its assignments to plain names, (name, value)."""
        assigns = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.bound[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                for a in node.names:
                    if a.name != "*":
                        self.bound[a.asname or a.name] = f"{module}.{a.name}" if node.module else f"{module}{a.name}"
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                assigns += [(t.id, node.value) for t in targets if isinstance(t, ast.Name)]
        return assigns

    def _bind_assigns(self, assigns: list[tuple[str, ast.expr]]) -> bool:
        """One pass over ``assigns``: the string or qualified name each value stands for now (a
        name bound to the module's own object stays its own). True when a binding changed."""
        changed = False
        for name, value in assigns:
            text = self._string(value)
            if text is not None and self.strings.get(name) != text:
                self.strings[name], changed = text, True
            q = self._resolve(value)
            if q is not None and not q.startswith(OWN) and self.bound.get(name) != q:
                self.bound[name], changed = q, True
        return changed

    def _string(self, node: ast.expr) -> str | None:
        """The string ``node`` always evaluates to (literals, ``+``, constant f-strings, ``''.join``
        of those, names holding one), or None: a computed string."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return self.strings.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self._string(node.left), self._string(node.right)
            return left + right if left is not None and right is not None else None
        if isinstance(node, ast.JoinedStr):
            parts = [self._string(v) for v in node.values]
            return "".join(parts) if all(p is not None for p in parts) else None  # type: ignore[arg-type]
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
                and len(node.args) == 1 and isinstance(node.args[0], ast.List | ast.Tuple)):
            sep = self._string(node.func.value)
            parts = [self._string(e) for e in node.args[0].elts]
            if sep is not None and all(p is not None for p in parts):
                return sep.join(parts)  # type: ignore[arg-type]
        return None

    def _resolve(self, node: ast.expr) -> str | None:
        """The qualified name ``node`` stands for (``o.system`` -> ``os.system``; the module's own
        ``self.items`` -> ``@self.items``), or None: the value of an expression (a call's result)."""
        if isinstance(node, ast.Name):
            if node.id in self.bound:
                return canonical(self.bound[node.id])
            if node.id == "__builtins__":
                return "builtins"
            if node.id in self.local or node.id not in BUILTIN_NAMES:
                return OWN + node.id
            return node.id
        if isinstance(node, ast.Attribute):
            base = self._resolve(node.value)
            return _join(base, node.attr) if base is not None else None
        if isinstance(node, ast.Call):
            return self._resolve_call(node)
        if isinstance(node, ast.Subscript):
            return self._resolve_subscript(node)
        return None

    def _resolve_call(self, node: ast.Call) -> str | None:
        """What a call names: ``__import__('os')`` -> ``os``, ``getattr(os, 'system')`` ->
        ``os.system``, ``vars(os)`` -> ``os.__dict__``, ``globals()`` -> ``<globals>``; else None."""
        func = self._resolve(node.func)
        arg = self._string(node.args[0]) if node.args else None
        if func in IMPORTERS and arg is not None:
            return canonical(arg)
        if func == "getattr" and len(node.args) >= 2 and (attr := self._string(node.args[1])) is not None:
            base = self._resolve(node.args[0])
            return _join(base, attr) if base is not None else None
        if func == "vars" and node.args:
            base = self._resolve(node.args[0])
            return f"{base}.__dict__" if base is not None else None
        if func in ("globals", "locals") and not node.args:
            return "<globals>"
        return None

    def _resolve_subscript(self, node: ast.Subscript) -> str | None:
        """What a literal key of a namespace names: ``sys.modules['os']`` -> ``os``,
        ``globals()['x']`` -> what ``x`` names, ``os.__dict__['system']`` -> ``os.system``; else None."""
        base, key = self._resolve(node.value), self._string(node.slice)
        if base is None or key is None:
            return None
        if base == "sys.modules":
            return canonical(key)
        if base == "<globals>":
            return self._resolve(ast.Name(id=key))
        if base.endswith(".__dict__") or base == "builtins":
            return canonical(f"{base.removesuffix('.__dict__')}.{key}")
        return None

    # references -------------------------------------------------------------------------------
    def _add(self, what: str, written: ast.expr, q: str) -> bool:
        """Count ``q`` (shown as ``what``) unless the allowlist holds it; True when counted."""
        risk = judge(q, self.own)
        if risk is None:
            return False
        shown = ast.unparse(written)
        same = canonical(shown) == q.removeprefix(OWN)
        self.found[f"{risk}: {what.removeprefix(OWN)}" + ("" if same else f" (as {shown})")] += 1
        return True

    def _visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            self._import(node)
            return
        if isinstance(node, ast.ImportFrom):
            self._import_from(node)
            return
        if isinstance(node, ast.Call):
            self._call(node)
            return
        if isinstance(node, ast.Subscript) and self._lookup(node):
            return
        if isinstance(node, ast.Attribute) and node.attr in ESCAPES:
            self.found[f"dynamic code: .{node.attr}"] += 1
        elif isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load) and self._reference(node):
            return
        for child in ast.iter_child_nodes(node):
            self._visit(child)

    def _import(self, node: ast.Import) -> None:
        for a in node.names:
            if (risk := judge(a.name, self.own)) is not None:
                self.found[f"{risk}: import {a.name}"] += 1

    def _reference(self, node: ast.Name | ast.Attribute) -> bool:
        """Count a name or attribute the allowlist lacks (``o.system`` after ``import os as o``). True when it did."""
        q = self._resolve(node)
        return q is not None and self._add(q, node, q)

    def _import_from(self, node: ast.ImportFrom) -> None:
        module = "." * node.level + (node.module or "")
        if not node.level and (risk := kind(module)) is not None:
            self.found[f"{risk}: import {module}"] += 1
            return
        for a in node.names:
            name = f"{module}.{a.name}" if node.module else f"{module}{a.name}"
            if a.name == "*" and (risk := judge(module, self.own)) is not None:
                self.found[f"{risk}: from {module} import *"] += 1
            elif a.name != "*" and (risk := judge(name, self.own)) is not None:
                self.found[f"{risk}: from {module} import {a.name}"] += 1

    def _call(self, node: ast.Call) -> None:
        func = self._resolve(node.func)
        args = [*node.args, *(k.value for k in node.keywords)]
        if func in IMPORTERS or func in LOOKUPS:
            self._by_name(node, func)
        elif func in FILE_CALLS:
            self._file(node, func)
        elif func is None or not self._add(f"{func}(...)", node.func, func):
            self._visit(node.func)
        for arg in args:
            self._visit(arg)

    def _by_name(self, node: ast.Call, func: str) -> None:
        """An import or attribute lookup by name: a literal one is judged as what it names
        (``getattr(self, 'total')`` is the module's own), a computed one is risky by itself."""
        name_at = 1 if func in ("getattr", "setattr", "delattr") else 0
        name = self._string(node.args[name_at]) if len(node.args) > name_at else None
        if name is None:
            what = (f"{func}() of a computed module name" if func in IMPORTERS else
                    f"{func}({ast.unparse(node.args[0]) if name_at and node.args else ''}, ...) with a computed name")
            self.found[f"dynamic code: {what}"] += 1
            if name_at and node.args:
                self._visit(node.args[0])
            return
        if func in IMPORTERS:
            self._add(canonical(name), node, canonical(name))
            return
        base = self._resolve(node.args[0]) if name_at else OWN + "object"
        if base is None:
            base = OWN + "value"
        self._add(_join(base, name), node, _join(base, name))
        if name_at:
            self._visit(node.args[0])

    def _file(self, node: ast.Call, func: str) -> None:
        """``open`` on a literal path inside the repo is allowed; a literal outside it or a computed one is not."""
        first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "file"), None)
        path = self._string(first) if first is not None else None
        if path is None:
            self.found[f"file access: {ast.unparse(node.func)}() on a computed path"] += 1
        elif _outside(path):
            self.found[f"outside the repo: {ast.unparse(node.func)}({path!r})"] += 1

    def _lookup(self, node: ast.Subscript) -> bool:
        """A subscript into a namespace (``sys.modules``, ``globals()``, ``vars(m)``, a ``__dict__``):
        a literal key is resolved like an attribute, a computed one is risky. True when handled."""
        base = self._resolve(node.value)
        if base is None or not (base in ("sys.modules", "<globals>", "builtins") or base.endswith(".__dict__")):
            return False
        q = self._resolve(node)
        if q is None:
            self.found[f"dynamic code: {ast.unparse(node.value)}[...] with a computed key"] += 1
        else:
            self._add(q, node, q)
        return True


def _join(base: str, attr: str) -> str:
    """``base.attr``, the module's own objects kept as such (``@self`` + ``x`` -> ``@self.x``)."""
    return f"{base}.{attr}" if base.startswith(OWN) else canonical(f"{base}.{attr}")


def _defined(tree: ast.AST) -> frozenset[str]:
    """The names ``tree`` defines itself: assignment and loop targets, parameters, functions,
    classes, ``except ... as``, ``global``/``nonlocal``, match captures."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.ExceptHandler
                        | ast.MatchAs | ast.MatchStar) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            names.update(node.names)
    return frozenset(names)


def _outside(path: str) -> bool:
    return path.startswith(("/", "~")) or path == ".." or path.startswith("../") or "/../" in path
