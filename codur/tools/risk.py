"""Risky code in a candidate patch: what a write adds that reaches past the repo.

An AST check of a Python file before and after a write (a model sample, an agent's edit):
the findings of the new text that the old one did not have. A finding is one of

- ``network``: an import of a networking module (socket, urllib, requests, http, ...) or a
  call through one (``requests.get(...)``);
- ``process``: an import of subprocess or pty, a call through one, or ``os.system``,
  ``os.popen``, ``os.exec*``, ``os.spawn*``;
- ``dynamic code``: a call of ``eval``, ``exec`` or ``__import__``;
- ``outside the repo``: ``open``, ``Path``, ``os.open``, ``shutil.*`` or ``os.remove``-like
  calls on a literal path that is absolute, starts with ``~`` or climbs with ``..``, and
  ``os.path.expanduser``.

Such a write is flagged and written only when approved (:meth:`ToolContext.write_many`):
the setting ``allow_risky_patches``, or the user's answer under ``--confirm``. A text
that does not parse has no findings (the syntax check deals with it).
"""

from __future__ import annotations

import ast
from collections import Counter

from codur.core.pyast import parse_ast

NETWORK = frozenset({"socket", "ssl", "urllib", "urllib2", "urllib3", "requests", "http", "httpx", "aiohttp",
                     "ftplib", "smtplib", "poplib", "imaplib", "telnetlib", "xmlrpc", "websocket", "websockets",
                     "paramiko"})
PROCESS = frozenset({"subprocess", "pty"})
OS_PROCESS = ("system", "popen", "exec", "spawn", "posix_spawn", "fork")
DYNAMIC = frozenset({"eval", "exec", "__import__"})
FILE_CALLS = frozenset({"open", "Path", "PurePath", "os.open", "os.remove", "os.unlink", "os.rmdir", "os.rename",
                        "os.replace", "os.listdir", "os.scandir", "os.walk", "io.open", "pathlib.Path"})


def findings(text: str) -> Counter[str]:
    """The risky constructs of Python source ``text`` (see the module doc), counted."""
    try:
        tree = parse_ast(text)
    except (SyntaxError, ValueError):
        return Counter()
    found: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.update(_import(node))
        elif isinstance(node, ast.Call):
            found.update(_call(node))
    return found


def added(before: str | None, after: str) -> list[str]:
    """What ``after`` adds to ``before`` (None: a new file), sorted: e.g.
    ``["network: import socket", "process: os.system(...)"]``."""
    new = findings(after) - findings(before or "")
    return sorted(new)


def _import(node: ast.Import | ast.ImportFrom) -> list[str]:
    names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
    out = []
    for name in names:
        top = name.split(".")[0]
        if top in NETWORK:
            out.append(f"network: import {name}")
        elif top in PROCESS:
            out.append(f"process: import {name}")
    if isinstance(node, ast.ImportFrom) and node.module == "os":
        out += [f"process: from os import {a.name}" for a in node.names if a.name.startswith(OS_PROCESS)]
    return out


def _dotted(func: ast.expr) -> str:
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
        return ".".join(reversed(parts))
    return ""


def _call(node: ast.Call) -> list[str]:
    name = _dotted(node.func)
    if not name:
        return []
    root, _, rest = name.partition(".")
    if name in DYNAMIC:
        return [f"dynamic code: {name}(...)"]
    if root in NETWORK and rest:
        return [f"network: {name}(...)"]
    if root in PROCESS and rest or root == "os" and rest.startswith(OS_PROCESS):
        return [f"process: {name}(...)"]
    if name == "os.path.expanduser":
        return ["outside the repo: os.path.expanduser(...)"]
    if name in FILE_CALLS or root == "shutil" and rest:
        first = node.args[0] if node.args else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and _outside(first.value):
            return [f"outside the repo: {name}({first.value!r})"]
    return []


def _outside(path: str) -> bool:
    return path.startswith(("/", "~")) or path == ".." or path.startswith("../") or "/../" in path
