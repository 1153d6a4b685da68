"""Operators that know the standard library: optional arguments added or dropped, a method
call chained on a string result, a negated element of a sum.

TSSB-3M's "same function more args" and "same function less args" (Richter & Wehrheim,
MSR 2022) are most often an optional argument of a library call: ``line.split("=")``
that should be ``line.split("=", 1)``, ``sorted(xs, key=k)`` that should sort in
reverse, ``text.split(" ")`` that should be ``text.split()``. A repo's own calls rarely
show the missing argument (calls.py copies those), so the usual optional arguments of
common built-ins are listed here (:data:`OPTIONAL`). Priors are the taxonomy's
(:mod:`codur.mutation.patterns`), scaled down a little: these guesses are less certain
than an argument copied from another call of the same function.
"""

from __future__ import annotations

import ast

from codur.mutation.patterns import DECAY, PRIOR
from codur.mutation.site import MutationSite

#: callee name -> (positional arguments it must have, the argument text to add).
OPTIONAL: dict[str, list[tuple[int, str]]] = {
    "split": [(1, "1")], "rsplit": [(1, "1")], "replace": [(2, "1")], "round": [(1, "2")],
    "enumerate": [(1, "1")], "get": [(1, "0")], "sorted": [(1, "reverse=True")], "sort": [(0, "reverse=True")],
    "min": [(1, "default=0")], "max": [(1, "default=0")],
}
#: Methods whose only argument is optional (``split(" ")`` -> ``split()``).
DROPPABLE = {"split", "rsplit", "strip", "lstrip", "rstrip", "pop", "sort"}
#: String methods whose result may need a further normalization.
STRING_RESULTS = {"strip", "lstrip", "rstrip", "replace", "join", "format", "title", "capitalize", "removeprefix",
                  "removesuffix"}
_SCALE = 0.9


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def op_library_call(node: ast.Call, ctx: MutationSite) -> None:
    """Optional arguments of common built-ins added (:data:`OPTIONAL`) or dropped
    (:data:`DROPPABLE`); ``.lower()`` / ``.strip()`` chained on a string method's result;
    the element of ``sum``/``min``/``max`` over a comprehension negated."""
    name, src = _callee(node), ctx.src
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return
    end = src.span(node)[1]
    if src.text[end - 1:end] != ")":
        return
    used = {k.arg for k in node.keywords}
    for i, (_, text) in enumerate(t for t in OPTIONAL.get(name, []) if t[0] == len(node.args)):
        keyword = text.split("=")[0] if "=" in text else None
        if keyword in used or not keyword and node.keywords:
            continue
        at = end - 1
        sep = ", " if node.args or node.keywords else ""
        ctx.add("same_function_more_args", node, [(at, at, f"{sep}{text}")],
                PRIOR["same_function_more_args"] * _SCALE * DECAY ** i,
                description=f"added the optional argument `{text}` to `{name}()`")
    if name in DROPPABLE and isinstance(node.func, ast.Attribute) and len(node.args) == 1 and not node.keywords:
        start, stop = src.span(node.args[0])
        ctx.add("same_function_less_args", node, [(start, stop, "")], PRIOR["same_function_less_args"] * _SCALE,
                description=f"dropped the optional argument `{src.seg(node.args[0])}` of `{name}()`")
    parent = ctx.parents.get(node)
    if name in STRING_RESULTS and isinstance(node.func, ast.Attribute) and not isinstance(parent, ast.Attribute):
        texts = [f"{src.seg(node)}.{m}()" for m in ("lower", "strip") if m != name]
        ctx.ranked(node, texts, "add_method_call", 2, _SCALE)
    if name in ("sum", "min", "max") and isinstance(node.func, ast.Name) and len(node.args) == 1 and isinstance(
            node.args[0], (ast.GeneratorExp, ast.ListComp)):
        elt = node.args[0].elt
        if not (isinstance(elt, ast.UnaryOp) and isinstance(elt.op, ast.USub)):
            ctx.replace(elt, f"-{src.operand(elt)}", "change_unary_operator", PRIOR["change_unary_operator"] * _SCALE)
