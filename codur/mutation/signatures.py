"""A keyword argument of a standard-library call, read from the callee's own signature.

TSSB-3M's "same function more args" (Richter & Wehrheim, MSR 2022; PAR's "parameter adder",
Kim et al. ICSE 2013) is most often an optional argument of a library call. The repo's own
calls rarely show it, and a hand-kept table (:mod:`codur.mutation.library`) knows only the
commonest built-ins. Here the callee is resolved through the module's imports to a function
of the standard library, its signature read with :func:`inspect.signature`, and each keyword
parameter with a default that the call does not pass gets the opposite of that default: a
flag negated (``sort_keys=True``, ``exist_ok=True``, ``strict=False``), a non-empty tuple,
list, set or string emptied (``functools.update_wrapper(wrapper, func, updated=())``). Only
standard-library modules codur's process has already imported are read: no module is imported
for this, so neither the project's code nor a module that acts when imported runs.
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
from typing import Any

from codur.mutation.patterns import DECAY, PRIOR
from codur.mutation.site import MutationSite

#: Keyword arguments added to one call at most.
MAX_PER_CALL = 6
_SCALE = 0.85
_EMPTY = {tuple: "()", list: "[]", frozenset: "frozenset()", set: "set()", str: '""', dict: "{}"}


@functools.lru_cache(maxsize=8)
def _imports(tree: ast.Module) -> dict[str, str]:
    """Name bound by a top-level import of ``tree`` -> the dotted path it names
    (``functools`` -> ``functools``, ``wraps`` -> ``functools.wraps``), standard library only."""
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            out.update((alias.asname or alias.name.split(".")[0], alias.name if alias.asname else
                        alias.name.split(".")[0]) for alias in node.names if _stdlib(alias.name))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level and _stdlib(node.module):
            out.update((alias.asname or alias.name, f"{node.module}.{alias.name}") for alias in node.names)
    return out


def _stdlib(module: str) -> bool:
    return module.split(".")[0] in sys.stdlib_module_names


def _dotted(func: ast.expr) -> list[str] | None:
    """``functools.update_wrapper`` -> ["functools", "update_wrapper"]; None for anything else."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    return [func.id, *reversed(parts)]


def _resolve(path: str) -> Any:
    """The object at dotted ``path`` (``functools.update_wrapper``) in a standard-library module this
    process has already imported, or None: nothing is imported for it (a module such as
    ``antigravity`` acts when imported)."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        obj: Any = sys.modules.get(".".join(parts[:cut]))
        if obj is None:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
        return obj
    return None


@functools.lru_cache(maxsize=512)
def _flips(path: str) -> tuple[tuple[str, str], ...]:
    """(keyword, opposite of its default) for the keyword parameters of the callable at ``path``."""
    obj = _resolve(path)
    try:
        params = inspect.signature(obj).parameters.values() if callable(obj) else ()
    except (TypeError, ValueError):
        return ()
    out = []
    for p in params:
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) or p.default is p.empty:
            continue
        if isinstance(p.default, bool):
            out.append((p.name, str(not p.default)))
        elif type(p.default) in _EMPTY and p.default:
            out.append((p.name, _EMPTY[type(p.default)]))
    return tuple(out)


def op_signature_keyword(node: ast.Call, ctx: MutationSite) -> None:
    """Add a keyword argument the standard-library callee accepts, set to the opposite of its
    default (see the module doc); the call's own arguments are kept."""
    parts = _dotted(node.func)
    if parts is None or any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
        return
    root = _imports(ctx.src.tree).get(parts[0])
    if root is None:
        return
    path = ".".join([root, *parts[1:]])
    end = ctx.src.span(node)[1]
    if ctx.src.text[end - 1:end] != ")":
        return
    passed = {k.arg for k in node.keywords}
    last = max([ctx.src.span(x)[1] for x in [*node.args, *node.keywords]], default=None)
    at = last if last is not None else end - 1
    flips = [(name, value) for name, value in _flips(path) if name not in passed][:MAX_PER_CALL]
    for i, (name, value) in enumerate(flips):
        text = f"{', ' if last is not None else ''}{name}={value}"
        ctx.add("same_function_more_args", node, [(at, at, text)],
                PRIOR["same_function_more_args"] * _SCALE * DECAY ** i,
                description=f"added `{name}={value}` to the call of `{path}` (its default is the opposite)")
