"""Operators that know the standard library: optional arguments added or dropped, a method
call chained on a string result (a separator stripped from a returned or assigned text,
:func:`op_strip_result`), a negated element of a sum.

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
from codur.mutation.site import MutationSite, short

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
#: Calls whose result is text: string methods and the builtins that make text.
TEXT_RESULTS = STRING_RESULTS | {"str", "repr", "format", "lower", "upper", "casefold", "swapcase", "center",
                                 "ljust", "rjust", "zfill", "expandtabs", "translate", "decode"}
#: String methods whose argument is a separator or the characters of one.
SEPARATED = {"split", "rsplit", "strip", "lstrip", "rstrip", "partition", "rpartition", "replace",
             "startswith", "endswith", "removeprefix", "removesuffix", "count", "find", "rfind", "index"}
_STRIPS = ("rstrip", "strip", "lstrip")
_SEPARATORS = 2  # text names stripped per site


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


def _is_text(node: ast.Call, ctx: MutationSite) -> bool:
    """Whether ``node``'s result is text: its callee makes text (:data:`TEXT_RESULTS`) or is a
    function of the module annotated ``-> str``."""
    name = _callee(node)
    if name in TEXT_RESULTS:
        return True
    defs = ctx.facts.functions.get(name, []) if isinstance(node.func, ast.Name) else []
    returns = getattr(defs[0], "returns", None) if defs else None
    return isinstance(returns, ast.Name) and returns.id == "str"


def separators(node: ast.Call, ctx: MutationSite) -> list[str]:
    """Parameters and locals of ``node``'s function that it uses as a separator: the receiver of a
    ``join`` (the one in ``node``'s own chain first), then an argument of a string method taking
    one (:data:`SEPARATED`); each group nearest to ``node`` first. Module names are left out."""
    func, facts = ctx.facts.owner.get(node), ctx.facts
    if func is None:
        return []
    bound = facts.scopes[func].bound
    own, joins, args = [], [], []
    chain = set(ast.walk(node))
    for call in ast.walk(func):
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
            continue
        method, receiver = call.func.attr, call.func.value
        if method == "join" and isinstance(receiver, ast.Name):
            (own if call in chain else joins).append(receiver)
        elif method in SEPARATED:
            args += [a for a in call.args if isinstance(a, ast.Name)]
    out: list[str] = []
    for group in (own, joins, args):
        for name in sorted(group, key=lambda n: abs(n.lineno - node.lineno)):
            if name.id in bound and name.id not in out:
                out.append(name.id)
    return out


def op_strip_result(node: ast.Call, ctx: MutationSite) -> None:
    """Add Method Call (TSSB-3M, Richter & Wehrheim, MSR 2022) on a call or chain result that is
    text, returned or assigned: ``sep.join(words)`` -> ``sep.join(words).rstrip(sep)``. For the
    first :data:`_SEPARATORS` names of :func:`separators`, ``.rstrip(a)``, ``.strip(a)``,
    ``.lstrip(a)``; then the argument-less ``.rstrip()`` / ``.lstrip()`` (``.strip()`` is
    :func:`op_library_call`'s). A modest prior: the taxonomy's, scaled like this module's other
    guesses, less :data:`DECAY` per candidate."""
    parent = ctx.parents.get(node)
    if not (isinstance(parent, (ast.Return, ast.Assign)) and parent.value is node) or not _is_text(node, ctx):
        return
    end = ctx.src.span(node)[1]
    if ctx.src.text[end - 1:end] != ")":
        return
    own = _callee(node)
    texts = [f".{m}({a})" for a in separators(node, ctx)[:_SEPARATORS] for m in _STRIPS]
    texts += [f".{m}()" for m in ("rstrip", "lstrip") if m != own]
    for i, text in enumerate(texts):
        ctx.add("add_method_call", node, [(end, end, text)], PRIOR["add_method_call"] * _SCALE * DECAY ** i,
                description=f"added `{text}` to `{short(ctx.src.seg(node))}`")
