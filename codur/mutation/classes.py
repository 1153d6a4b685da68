"""The class of the instance where a method names its class: ``Version`` -> ``type(self)``.

A method (or a function whose first parameter is ``self``, such as the wrapper a decorator
builds for methods) that names a class of its own module by name treats every subclass as
that class: ``isinstance(other, (Version, dict))`` refuses a subclass's peer,
``return Money(...)`` turns a subclass's result back into the base class. The fix replaces
the name by the instance's class. It is the change-identifier-used pattern of the SStuB
taxonomies (:mod:`codur.mutation.patterns`) with the one class-valued expression every method
has in scope, ``type(self)``.
"""

from __future__ import annotations

import ast
import functools

from codur.mutation.site import MutationSite

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def op_own_class(node: ast.Name, ctx: MutationSite) -> None:
    """``Version`` -> ``type(self)`` for a load of a module-level class's name inside a function
    whose first parameter is ``self`` (not in ``super(Version, self)``, not in an annotation)."""
    if not isinstance(node.ctx, ast.Load) or node.id not in _classes(ctx.src.tree):
        return
    func = ctx.parents.get(node)
    while func is not None and not isinstance(func, _FUNCS):
        if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "super":
            return
        func = ctx.parents.get(func)
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    params = func.args.posonlyargs + func.args.args
    if not params or params[0].arg != "self" or _in_annotation(node, func, ctx):
        return
    start, end = ctx.src.span(node)
    ctx.add("change_identifier_used", node, [(start, end, "type(self)")],
            description=f"`{node.id}` -> `type(self)`: the instance's class, subclasses included")


@functools.lru_cache(maxsize=8)
def _classes(tree: ast.Module) -> frozenset[str]:
    """Names of the classes defined at the top of ``tree`` (cached by the tree's identity)."""
    return frozenset(n.name for n in tree.body if isinstance(n, ast.ClassDef))


def _in_annotation(node: ast.AST, func: ast.AST, ctx: MutationSite) -> bool:
    """True when ``node`` sits in an annotation of ``func`` (a parameter's or the return's)."""
    annotations = [a.annotation for a in ast.walk(func.args) if isinstance(a, ast.arg) and a.annotation]
    annotations += [func.returns] if func.returns is not None else []
    return any(node is n for a in annotations for n in ast.walk(a))
