"""Risky code in a candidate patch: what a write adds that reaches past the repo.

An AST check of a Python file before and after a write (a model sample, an agent's edit):
the findings of the new text that the old one did not have. Names are resolved, not read
literally: every name a module binds through ``import x as y``, ``from x import y as z``,
an assignment (``s = os.system``, ``m = importlib.import_module('socket')``), or a string
constant (``MOD = 'soc' + 'ket'``) is followed to the qualified name it stands for, so
``import os as o; o.system(...)``, ``from os import system as s; s(...)``,
``getattr(os, 'system')``, ``__import__('os').system`` and ``builtins.eval`` are found as
``os.system`` and ``eval``. Binding is flow-insensitive (a name bound anywhere in the file
counts everywhere), which errs towards flagging. A finding is one of

- ``network``: an import of, or a reference to, a networking module (socket, urllib,
  requests, http, ...) or anything in it;
- ``process``: the same for subprocess, pty, ctypes, multiprocessing, or ``os.system``,
  ``os.popen``, ``os.exec*``, ``os.spawn*``, ``os.posix_spawn*``, ``os.fork*``;
- ``dynamic code``: ``eval``, ``exec``, ``compile``, ``runpy``; an import whose module name
  is computed (``importlib.import_module(name)``, ``__import__(name)``), a ``getattr`` with a
  computed name on a module or a builtin, a computed key into ``sys.modules``, ``globals()``,
  ``vars(...)`` or a ``__dict__``, and the sandbox-escape attributes (``__subclasses__``,
  ``__globals__``, ``__builtins__``, ``__code__``). A computed name is risky by itself: the
  check cannot know what it names;
- ``outside the repo``: ``open``, ``Path``, ``os.open``, ``shutil.*`` or ``os.remove``-like
  calls on a literal path that is absolute, starts with ``~`` or climbs with ``..``, and
  ``os.path.expanduser``.

A reference counts, not only a call: ``map(os.system, cmds)`` is found. Such a write is
flagged and written only when approved (:meth:`ToolContext.write_many`): the setting
``allow_risky_patches``, or the user's answer under ``--confirm``. A text that does not parse
has no findings (the syntax check deals with it).
"""

from __future__ import annotations

import ast
import re
from collections import Counter

from codur.core.pyast import parse_ast

NETWORK = frozenset({"socket", "ssl", "urllib", "urllib2", "urllib3", "requests", "http", "httpx", "aiohttp",
                     "ftplib", "smtplib", "poplib", "imaplib", "telnetlib", "xmlrpc", "websocket", "websockets",
                     "paramiko", "asyncio.open_connection", "asyncio.create_subprocess_exec"})
PROCESS = frozenset({"subprocess", "pty", "ctypes", "multiprocessing", "asyncio.create_subprocess_shell",
                     "asyncio.create_subprocess_exec"})
OS_PROCESS = re.compile(r"os\.(system|popen|exec\w*|spawn\w*|posix_spawn\w*|fork\w*)$")
DYNAMIC = frozenset({"eval", "exec", "compile", "runpy"})
#: Calls that import a module by name: the name literal is resolved, a computed one is risky.
IMPORTERS = frozenset({"__import__", "importlib.import_module", "importlib.__import__"})
#: Attributes that reach the interpreter's internals (the classic sandbox escapes).
ESCAPES = frozenset({"__subclasses__", "__globals__", "__builtins__", "__code__", "__closure__"})
FILE_CALLS = frozenset({"open", "Path", "PurePath", "os.open", "os.remove", "os.unlink", "os.rmdir", "os.rename",
                        "os.replace", "os.listdir", "os.scandir", "os.walk", "io.open", "pathlib.Path",
                        "pathlib.PurePath"})
#: Other names of a module: the OS layer os re-exports, and the builtins as a name.
SYNONYMS = {"posix": "os", "nt": "os", "__builtins__": "builtins", "_io": "io"}


def findings(text: str) -> Counter[str]:
    """The risky constructs of Python source ``text`` (see the module doc), counted."""
    try:
        tree = parse_ast(text)
    except (SyntaxError, ValueError):
        return Counter()
    return _Finder(tree).found


def added(before: str | None, after: str) -> list[str]:
    """What ``after`` adds to ``before`` (None: a new file), sorted: e.g.
    ``["network: import socket", "process: os.system(...)"]``."""
    new = findings(after) - findings(before or "")
    return sorted(new)


def kind(qualified: str) -> str | None:
    """The risk of what the dotted name ``qualified`` names (``os.system`` -> ``process``), or None:
    the first of its prefixes (``socket``, ``socket.create_connection``) that is risky decides."""
    parts = _canonical(qualified).split(".")
    for n in range(1, len(parts) + 1):
        name = ".".join(parts[:n])
        if name in NETWORK:
            return "network"
        if name in PROCESS or OS_PROCESS.match(name):
            return "process"
        if name in DYNAMIC:
            return "dynamic code"
    return "dynamic code" if any(p in ESCAPES for p in parts) else None


def _canonical(name: str) -> str:
    head, dot, rest = name.partition(".")
    head = SYNONYMS.get(head, head)
    name = head + dot + rest
    return name.removeprefix("builtins.") if name != "builtins" else name


class _Finder:
    """Two passes over a module: the names it binds (to a fixpoint), then what it references."""

    def __init__(self, tree: ast.AST) -> None:
        self.bound: dict[str, str] = {}    # local name -> qualified name it stands for
        self.strings: dict[str, str] = {}  # local name -> the string constant it holds
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
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if a.name != "*":
                        self.bound[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                assigns += [(t.id, node.value) for t in targets if isinstance(t, ast.Name)]
        return assigns

    def _bind_assigns(self, assigns: list[tuple[str, ast.expr]]) -> bool:
        """One pass over ``assigns``: the string or qualified name each value stands for now.
        True when a binding changed (another pass may resolve more)."""
        changed = False
        for name, value in assigns:
            text = self._string(value)
            if text is not None and self.strings.get(name) != text:
                self.strings[name], changed = text, True
            q = self._resolve(value)
            if q is not None and self.bound.get(name) != q:
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
        """The qualified name ``node`` stands for (``o.system`` -> ``os.system``), or None."""
        if isinstance(node, ast.Name):
            return _canonical(self.bound.get(node.id, node.id))
        if isinstance(node, ast.Attribute):
            base = self._resolve(node.value)
            return _canonical(f"{base}.{node.attr}") if base is not None else None
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
            return _canonical(arg)
        if func == "getattr" and len(node.args) >= 2 and (attr := self._string(node.args[1])) is not None:
            base = self._resolve(node.args[0])
            return _canonical(f"{base}.{attr}") if base is not None else None
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
            return _canonical(key)
        if base == "<globals>":
            return self._resolve(ast.Name(id=key))
        if base.endswith(".__dict__") or base == "builtins":
            return _canonical(f"{base.removesuffix('.__dict__')}.{key}")
        return None

    def _imported(self, node: ast.expr) -> bool:
        """Whether ``node``'s value comes from an import, the builtins or a dynamic import (a module,
        or something in one), as opposed to a local object such as ``self``."""
        root: ast.expr = node
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        if isinstance(root, ast.Name):
            return root.id in self.bound or _canonical(root.id) == "builtins"
        return isinstance(root, ast.Call) and self._resolve(root.func) in (*IMPORTERS, "globals", "locals", "vars")

    # references -------------------------------------------------------------------------------
    def _add(self, what: str, written: ast.expr, q: str) -> None:
        risk = kind(q)
        if risk is not None:
            shown = ast.unparse(written)
            self.found[f"{risk}: {what}" + (f" (as {shown})" if _canonical(shown) != q else "")] += 1

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
            if (risk := kind(a.name)) is not None:
                self.found[f"{risk}: import {a.name}"] += 1

    def _reference(self, node: ast.Name | ast.Attribute) -> bool:
        """Count a name or attribute that names something risky (``o.system`` after ``import os as o``).
        True when it did."""
        q = self._resolve(node)
        if q is None or kind(q) is None:
            return False
        self._add(q, node, q)
        return True

    def _import_from(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module:
            return  # the repo's own modules
        if (risk := kind(node.module)) is not None:
            self.found[f"{risk}: import {node.module}"] += 1
            return
        for a in node.names:
            if a.name == "*" and node.module in ("os", "posix", "builtins", "importlib"):
                self.found[f"process: from {node.module} import *"] += 1
            elif (risk := kind(f"{node.module}.{a.name}")) is not None:
                self.found[f"{risk}: from {node.module} import {a.name}"] += 1

    def _call(self, node: ast.Call) -> None:
        func = self._resolve(node.func)
        args = [*node.args, *(k.value for k in node.keywords)]
        if func in IMPORTERS or func == "getattr":
            q = self._resolve(node)
            if q is not None and kind(q) is not None:
                self._add(q, node, q)  # __import__('socket'), getattr(os, 'system')
                return
            if q is None and func in IMPORTERS and node.args and self._string(node.args[0]) is None:
                self.found[f"dynamic code: {func}() of a computed module name"] += 1
            elif (q is None and func == "getattr" and len(node.args) >= 2 and self._string(node.args[1]) is None
                  and self._imported(node.args[0])):
                self.found[f"dynamic code: getattr({ast.unparse(node.args[0])}, ...) with a computed name"] += 1
        elif func is not None and kind(func) is not None:
            self._add(f"{func}(...)", node.func, func)
        else:
            if func is not None:
                self._outside(node, func)
            self._visit(node.func)
        for arg in args:
            self._visit(arg)

    def _lookup(self, node: ast.Subscript) -> bool:
        """A subscript into a namespace (``sys.modules``, ``globals()``, ``vars(m)``, a ``__dict__``):
        a literal key is resolved like an attribute, a computed one is risky. True when handled."""
        base = self._resolve(node.value)
        if base is None or not (base in ("sys.modules", "<globals>", "builtins") or base.endswith(".__dict__")):
            return False
        q = self._resolve(node)
        if q is None:
            self.found[f"dynamic code: {ast.unparse(node.value)}[...] with a computed key"] += 1
        elif kind(q) is not None:
            self._add(q, node, q)
        return True

    def _outside(self, node: ast.Call, func: str) -> None:
        if func == "os.path.expanduser":
            self.found["outside the repo: os.path.expanduser(...)"] += 1
            return
        if func in FILE_CALLS or func.startswith("shutil."):
            first = node.args[0] if node.args else None
            path = self._string(first) if first is not None else None
            if path is not None and _outside(path):
                self.found[f"outside the repo: {ast.unparse(node.func)}({path!r})"] += 1


def _outside(path: str) -> bool:
    return path.startswith(("/", "~")) or path == ".." or path.startswith("../") or "/../" in path
