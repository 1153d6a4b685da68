"""Mutation operators on the names an expression uses: change identifier used, change
attribute used, another method of the same receiver, same function wrong caller (the call
and argument edits are :mod:`codur.mutation.calls`). Pattern names and priors: ``patterns.py``;
the registry by node type: ``operators.OPERATORS``.
"""

from __future__ import annotations

import ast
from collections import Counter

from codur.mutation.kinds import use_of
from codur.mutation.names import FUNCS, Facts, family
from codur.mutation.patterns import DECAY, PRIOR
from codur.mutation.site import MutationSite

#: methods of the same arity that stand in for each other (change_attribute_used)
_METHOD_SWAPS = {"startswith": ["endswith"], "endswith": ["startswith"], "lower": ["upper"],
                 "upper": ["lower"], "lstrip": ["rstrip", "strip"], "rstrip": ["lstrip", "strip"],
                 "strip": ["rstrip", "lstrip"], "find": ["rfind", "index"], "rfind": ["find"],
                 "index": ["rindex", "find"], "rindex": ["index"], "floor": ["ceil"], "ceil": ["floor"],
                 "keys": ["values"], "values": ["keys", "items"], "items": ["values"], "ljust": ["rjust"],
                 "rjust": ["ljust"], "append": ["extend"], "extend": ["append"], "add": ["update"],
                 "update": ["add"], "remove": ["discard"], "discard": ["remove"], "split": ["rsplit"],
                 "rsplit": ["split"], "partition": ["rpartition"], "rpartition": ["partition"],
                 "isupper": ["islower"], "islower": ["isupper"], "isdigit": ["isalpha", "isalnum"],
                 "isalpha": ["isdigit", "isalnum"], "pop": ["popleft"], "popleft": ["pop"],
                 "appendleft": ["append"], "argmin": ["argmax"], "argmax": ["argmin"],
                 "get": ["pop", "setdefault"], "setdefault": ["get"], "sort": ["reverse"]}


def _stdlib_siblings() -> dict[str, list[str]]:
    """Methods of common standard-library types whose names extend one another
    (``time``/``timetz``/``timetuple`` of ``datetime``, ``split``/``splitlines`` of ``str``): a
    call of the shorter or longer name on the same receiver. Derived from ``dir()`` of the
    types, not listed by hand, so the table follows the running Python."""
    import datetime
    import decimal
    import pathlib
    types = (str, bytes, list, dict, set, datetime.datetime, datetime.date, datetime.time,
             datetime.timedelta, decimal.Decimal, pathlib.PurePath)
    out: dict[str, list[str]] = {}
    for t in types:
        names = [n for n in dir(t) if not n.startswith("_") and callable(getattr(t, n, None))]
        for a in names:
            near = [b for b in names if b != a and (b.startswith(a) or a.startswith(b))]
            out.setdefault(a, [])
            out[a] += [b for b in sorted(near, key=len) if b not in out[a]]
    return {k: v for k, v in out.items() if v}


#: sibling methods of standard types (see :func:`_stdlib_siblings`), after the hand table
STDLIB_SIBLINGS = _stdlib_siblings()
_IDENTIFIERS = 3  # nearest replacement names per site
ATTRIBUTES = 2  # sibling attributes / methods per site


def op_name(node: ast.Name, ctx: MutationSite) -> None:
    """Change identifier used: the nearest names of a compatible kind (index names first in a
    subscript); a stored name (``lo = mid`` -> ``hi = mid``) by the function's other names."""
    parent, facts = ctx.parents.get(node), ctx.facts
    if node.id in ("self", "cls", "_") or isinstance(parent, ast.Call) and parent.func is node:
        return  # a called name: wrong_function_name (op_call)
    kinds = facts.kinds_of(node)
    if isinstance(node.ctx, ast.Store):
        if isinstance(parent, (ast.Assign, ast.AugAssign)):
            need = "num" if "num" in kinds else "seq" if "seq" in kinds else None
            ctx.ranked(node, facts.nearest(node, need), "change_identifier_used", 2, DECAY)
        return
    if not isinstance(node.ctx, ast.Load) or "import" in kinds:
        return
    need = use_of(node, ctx.parents)
    grand = ctx.parents.get(parent)
    if need == "obj" and isinstance(grand, ast.Call) and grand.func is parent:
        return  # the caller of a method: same_function_wrong_caller (op_attribute)
    stmt = ctx.statement_of(parent)
    loop = isinstance(stmt, (ast.For, ast.AsyncFor)) and node in set(ast.walk(stmt.iter))
    targets = tuple(n.id for n in ast.walk(stmt.target) if isinstance(n, ast.Name)) if loop else ()
    names = facts.nearest(node, need, limit=8, exclude=targets)  # not `for x in x`
    if need == "index":
        names = [n for n in names if n in ctx.index_names] + names
    ctx.ranked(node, names, "change_identifier_used", _IDENTIFIERS)
    if need != "obj":
        _access(node, need, kinds, ctx)


def _access(node: ast.Name, need: str | None, kinds: set[str], ctx: MutationSite) -> None:
    """Add attribute access / method call / subscript / ``len()`` to a bare name."""
    facts, x, parent = ctx.facts, node.id, ctx.parents.get(node)
    key = facts.key(node)
    attrs = [a for a, _ in facts.attributes.get(key, Counter()).most_common()]
    ctx.ranked(node, [f"{x}.{a}" for a in attrs], "add_attribute_access", 2)
    iterated = isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node
    methods = [m for m, _ in facts.nullary.get(key, Counter()).most_common()]
    if iterated and ("dict" in kinds or isinstance(parent.target, ast.Tuple) and len(parent.target.elts) == 2):
        methods = ["items", "values", *methods]
    elif need == "str" or "str" in kinds:
        methods += ["lower", "strip"]
    ctx.ranked(node, [f"{x}.{m}()" for m in methods], "add_method_call", 2)
    if not kinds & {"seq", "str"} or "dict" in kinds or isinstance(parent, ast.Subscript):
        return
    if need == "seq":
        texts = [f"{x}[1:]", f"{x}[:-1]"]
    else:
        loops = [n.id for loop in _enclosing_loops(node, ctx) for n in ast.walk(loop.target)
                 if isinstance(n, ast.Name) and n.id != x and "index" in facts.scope_of(node).kinds.get(n.id, ())]
        texts = [f"{x}[{i}]" for i in loops[:1]] + [f"{x}[0]", f"{x}[-1]"]
    ctx.ranked(node, texts, "add_subscript", 3)
    if need == "num":
        ctx.replace(node, f"len({x})", "add_function_around_expression")


def _enclosing_loops(node: ast.AST, ctx: MutationSite) -> list[ast.For]:
    out, parent = [], ctx.parents.get(node)
    while parent is not None and not isinstance(parent, FUNCS):
        if isinstance(parent, (ast.For, ast.AsyncFor)) and node not in ast.walk(parent.iter):
            out.append(parent)
        parent = ctx.parents.get(parent)
    return out


def op_attribute(node: ast.Attribute, ctx: MutationSite) -> None:
    """Wrong (method) function name and change of caller for ``a.f()``; change attribute used
    for ``a.x``: siblings seen on the same receiver (or type) elsewhere in the module."""
    facts, parent = ctx.facts, ctx.parents.get(node)
    end = ctx.src.span(node)[1]
    span = (end - len(node.attr), end)
    if ctx.src.text[span[0]:end] != node.attr:
        return
    key = facts.key(node.value)
    if not (isinstance(parent, ast.Call) and parent.func is node):
        attrs = [a for a, _ in facts.attributes.get(key, Counter()).most_common() if a != node.attr]
        for i, attr in enumerate(attrs[:ATTRIBUTES]):
            ctx.add("change_attribute_used", node, [(*span, attr)], PRIOR["change_attribute_used"] * DECAY ** i)
        return
    methods = (_METHOD_SWAPS.get(node.attr, []) + STDLIB_SIBLINGS.get(node.attr, [])[:2]
               + [m for m, _ in facts.methods.get(key, Counter()).most_common()])
    cls = facts.classes.get(key[6:]) if key and key.startswith("class:") else None
    methods += [d.name for d in (cls.body if cls else []) if isinstance(d, FUNCS) and not d.name.startswith("__")]
    methods = [m for m in dict.fromkeys(methods) if m != node.attr and arity_fits(m, parent, facts)]
    for i, method in enumerate(methods[:ATTRIBUTES]):
        ctx.add("wrong_function_name", node, [(*span, method)], PRIOR["wrong_function_name"] * DECAY ** i)
    receiver = node.value
    if isinstance(receiver, ast.Name) and receiver.id not in ("self", "cls") and \
            "import" not in facts.kinds_of(receiver):
        func, mine = facts.owner.get(node), family(facts.kinds_of(receiver))
        ranked = []
        for name in facts.nearest(receiver, "obj", limit=8):
            if node.attr in facts.methods.get(facts.name_key(name, func), ()):
                ranked.append((0, name))  # the method is called on it elsewhere
            elif family(facts.kinds_named(name, func)) in (mine, None) and mine != "num":
                ranked.append((1, name))
        ctx.ranked(receiver, [n for _, n in sorted(ranked, key=lambda r: r[0])], "same_function_wrong_caller", 2)


def arity_fits(name: str, call: ast.Call, facts: Facts) -> bool:
    """True unless what the module knows of ``name`` (its def, its other calls) rules out
    ``call``'s number of positional arguments."""
    n = len(call.args)
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True
    arity = facts.arity(name)
    if arity is not None:
        return arity[0] <= n + len(call.keywords) and n <= arity[1]
    seen = {len(c.args) for c in facts.calls.get(name, [])}
    return not seen or n in seen
