"""Mutation operators on calls and their arguments (the identifier and attribute edits:
:mod:`codur.mutation.identifiers`).

Wrong function name, same function with more, fewer or swapped arguments or another
keyword, added attribute access / method call / subscript, and a function added around an
expression or removed from it. Pattern names and priors: ``patterns.py``; the registry by node type:
``operators.OPERATORS``.
"""

from __future__ import annotations

import ast
import difflib
import itertools
from collections import Counter

from codur.mutation.identifiers import ATTRIBUTES, arity_fits
from codur.mutation.kinds import is_num, is_str
from codur.mutation.names import BUILTINS
from codur.mutation.patterns import DECAY, PRIOR
from codur.mutation.site import MutationSite, plus_minus, short

#: builtins of the same arity that stand in for each other (wrong_function_name)
_FUNC_SWAPS = {"any": ["all"], "all": ["any"], "min": ["max"], "max": ["min"], "sorted": ["reversed"],
               "reversed": ["sorted"], "str": ["repr"], "repr": ["str"], "int": ["round", "float"],
               "round": ["int"], "float": ["int"], "list": ["sorted", "set"], "set": ["list", "sorted"],
               "sum": ["len", "max"], "len": ["sum"], "map": ["filter"], "filter": ["map"],
               "isinstance": ["issubclass"], "hasattr": ["getattr"], "getattr": ["hasattr"]}
#: one-argument builtins that convert or reorder: unwrapped by remove_function_around_expression
_WRAPPERS = {"int", "float", "str", "list", "tuple", "set", "sorted", "reversed", "abs", "round",
             "bool", "len", "iter", "repr", "frozenset"}
_ITERATORS = {"map", "filter", "zip", "range", "reversed", "enumerate"}


# ------------------------------------------------------------------ calls

def op_call(node: ast.Call, ctx: MutationSite) -> None:
    func = node.func
    if isinstance(func, ast.Name):
        _function_name(node, func, ctx)
        if func.id == "range":
            for arg in node.args:
                plus_minus(arg, ctx, "bound_shift")
        if func.id == "len":
            plus_minus(node, ctx, "bound_shift", 0.9)  # len(xs) -> len(xs) - 1
        args = node.args
        if len(args) == 1 and not node.keywords and not isinstance(args[0], ast.Starred) and func.id not in (
                "print", "range", "len", "iter", "next", "type", "id", "hash", "super", "isinstance"):
            factor = 1.0 if func.id in _WRAPPERS else 0.8  # f(x) -> x
            ctx.replace(node, ctx.fill(node, args[0]), "remove_function_around_expression",
                        PRIOR["remove_function_around_expression"] * factor)
        if func.id in ("max", "min") and len(args) == 2 and not node.keywords:
            for bound, value in (args, args[::-1]):
                if is_num(bound) and not isinstance(value, ast.Starred):
                    ctx.replace(node, ctx.fill(node, value), "remove_function_around_expression")
    _arguments(node, ctx)
    _recursive(node, ctx)


def _function_name(node: ast.Call, func: ast.Name, ctx: MutationSite) -> None:
    """Wrong function name: a builtin of the same arity, or a sibling module function that
    accepts the call's arguments (most similar name first)."""
    facts, name = ctx.facts, func.id
    alts = list(_FUNC_SWAPS.get(name, []))
    if name in facts.functions or name not in BUILTINS | facts.classes.keys() and "import" not in facts.kinds_of(func):
        siblings = [f for f, defs in facts.functions.items() if f != name and isinstance(
            facts.parents.get(defs[0]), ast.Module) and arity_fits(f, node, facts)]
        siblings.sort(key=lambda f: -difflib.SequenceMatcher(None, name, f).ratio())
        alts += siblings
    ctx.ranked(func, alts, "wrong_function_name", ATTRIBUTES)


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _arguments(node: ast.Call, ctx: MutationSite) -> None:
    """Same function with swapped, fewer or more arguments, or another keyword."""
    src, facts, name = ctx.src, ctx.facts, _callee(node)
    args = [a for a in node.args if not isinstance(a, ast.Starred)]
    for a, b in itertools.pairwise(args):
        (as_, ae), (bs, be) = src.span(a), src.span(b)
        ctx.add("same_function_swap_args", node, [(as_, ae, src.seg(b)), (bs, be, src.seg(a))],
                description=f"swapped the arguments `{short(src.seg(a))}` and `{short(src.seg(b))}`")
    own = isinstance(node.func, ast.Name) or isinstance(node.func, ast.Attribute) and isinstance(
        node.func.value, ast.Name) and node.func.value.id in ("self", "cls")
    arity = facts.arity(name) if own else None
    others = [c for c in facts.calls.get(name, []) if c is not node]
    items = sorted([*node.args, *node.keywords], key=lambda n: src.span(n))
    for item in ([items[-1]] if items else []) + ([node.args[-1]] if node.keywords and node.args else []):
        positional = not isinstance(item, ast.keyword)
        if positional and (isinstance(item, ast.Starred) or len(node.args) < 2 and not (
                arity and arity[0] < len(node.args) or any(len(c.args) < len(node.args) for c in others))):
            continue
        k = items.index(item)
        start = src.span(items[k - 1])[1] if k else src.span(item)[0]
        end = src.span(items[k + 1])[0] if not k and len(items) > 1 else src.span(item)[1]
        ctx.add("same_function_less_args", node, [(start, end, "")],
                description=f"dropped the argument `{short(src.seg(item))}`")
    _more_arguments(node, ctx, arity, others)
    params = []
    if arity is not None:
        a = facts.functions[name][0].args
        params = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg not in ("self", "cls")]
    used = {k.arg for k in node.keywords}
    params += [k.arg for c in others for k in c.keywords if k.arg]
    for kw in node.keywords:
        start = src.span(kw)[0]
        if kw.arg is None or src.text[start:start + len(kw.arg)] != kw.arg:
            continue
        alts = [p for p in dict.fromkeys(params) if p not in used]
        for i, alt in enumerate(alts[:2]):
            ctx.add("change_keyword_argument_used", kw, [(start, start + len(kw.arg), alt)],
                    PRIOR["change_keyword_argument_used"] * DECAY ** i)


def _more_arguments(node: ast.Call, ctx: MutationSite, arity: tuple[int, float] | None,
                    others: list[ast.Call]) -> None:
    """Same function, more arguments: the next argument of another call of it, or the next
    parameter of its definition when a variable of that name is in scope (the three most
    frequent, each added before the closing parenthesis)."""
    src = ctx.src
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return
    found = _next_arguments(node, ctx, arity, others)
    end = src.span(node)[1]
    if src.text[end - 1:end] != ")":
        return
    last = max([src.span(x)[1] for x in [*node.args, *node.keywords]], default=None)
    open_ = src.text.index("(", src.span(node.func)[1]) + 1
    for i, ((kind, text), _) in enumerate(found.most_common(3)):
        if kind == "arg" and node.args:
            spans = [(src.span(node.args[-1])[1],) * 2 + (f", {text}",)]
        elif kind == "arg":
            spans = [(open_, open_, f"{text}, " if node.keywords else text)]
        else:
            spans = [(last, last, f", {text}")] if last is not None else [(open_, open_, text)]
        ctx.add("same_function_more_args", node, spans, PRIOR["same_function_more_args"] * DECAY ** i,
                description=f"added the argument `{short(text)}` to `{short(src.seg(node))}`")


def _next_arguments(node: ast.Call, ctx: MutationSite, arity: tuple[int, float] | None,
                    others: list[ast.Call]) -> Counter:
    """(kind, source) -> count of the arguments ``node`` may lack ("arg": the next positional
    one, "kw": a keyword one, as ``name=value``): those the ``others`` calls of its function
    pass, whose names are all visible at ``node``, and the next parameter of the function's
    definition (``arity``: its (required, maximum) positional arguments) when a variable of
    that name is bound in the scope."""
    src, facts = ctx.src, ctx.facts
    visible = set(facts.scope_of(node).bound) | set(facts.scopes[None].bound) | set(
        facts.comprehension_names(node)) | BUILTINS
    n, used = len(node.args), {k.arg for k in node.keywords}
    found: Counter = Counter()
    for call in others:
        extra = [("arg", src.seg(call.args[n]), call.args[n])] if len(call.args) > n else []
        extra += [("kw", src.seg(k), k.value) for k in call.keywords if k.arg and k.arg not in used]
        for kind, text, value in extra:
            if {x.id for x in ast.walk(value) if isinstance(x, ast.Name)} <= visible:
                found[(kind, text)] += 1
    if arity is not None and n < arity[1]:
        a = facts.functions[_callee(node)][0].args
        params = [p.arg for p in a.posonlyargs + a.args if p.arg not in ("self", "cls")]
        if n < len(params) and params[n] in facts.scope_of(node).bound and params[n] not in used:
            found[("arg", params[n])] += 1
    return found


def _recursive(node: ast.Call, ctx: MutationSite) -> None:
    """A recursive call's arguments: ``f(n)`` -> ``f(n - 1)``, ``f(xs)`` -> ``f(xs[1:])``."""
    facts, callee = ctx.facts, node.func
    func = facts.owner.get(node)
    if func is None or not (isinstance(callee, ast.Name) and callee.id == func.name or isinstance(
            callee, ast.Attribute) and callee.attr == func.name and isinstance(callee.value, ast.Name)
            and callee.value.id in ("self", "cls")):
        return
    for arg in node.args:
        if isinstance(arg, (ast.Starred, ast.Constant)):
            continue
        sequence = isinstance(arg, ast.Subscript) and isinstance(arg.slice, ast.Slice) or isinstance(
            arg, ast.Name) and facts.kinds_of(arg) & {"seq", "str"}
        if sequence:
            ctx.replace(arg, f"{ctx.src.operand(arg)}[1:]", "change_recursive_argument")
        else:
            plus_minus(arg, ctx, "change_recursive_argument")


# ------------------------------------------------------------------ wrappers

def _beside(node: ast.AST, parent: ast.AST | None) -> ast.AST | None:
    """The other operand of the binary operation, comparison or augmented assignment ``node``
    is an operand of."""
    if isinstance(parent, ast.BinOp):
        return parent.right if parent.left is node else parent.left
    if isinstance(parent, ast.Compare) and len(parent.ops) == 1:
        return parent.comparators[0] if parent.left is node else parent.left
    return parent.target if isinstance(parent, ast.AugAssign) and parent.value is node else None


def op_wrap(node: ast.expr, ctx: MutationSite) -> None:
    """Add function around expression: ``abs``/``max(0, .)`` of a difference, ``int``/``round``
    of a quotient, ``list`` of an iterator, ``sorted`` of an iterated or returned collection,
    ``str`` of a non-string concatenated to a string, ``int`` of text used as a number.

    A quotient's ``int``/``round`` rank just after its floor division (``a / b`` → ``a // b``,
    ``change_binary_operator``): ``//`` is Python 3's integer division (PEP 238), exact for
    integers of any size, where ``int(a / b)`` goes through a float (exact only below 2**53)
    and truncates toward zero; both pass the tests that ask for a whole number, and the first
    plausible one is applied. The wrapper stays for a quotient of floats, where ``//`` gives a
    float."""
    parent, text, facts = ctx.parents.get(node), ctx.src.seg(node), ctx.facts
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in (
            _WRAPPERS | {"max", "min", "list", "sorted", "set", "tuple"}):
        return
    callee = _callee(node) if isinstance(node, ast.Call) else ""
    kinds = facts.kinds_of(node) if isinstance(node, ast.Name) else set()
    beside = _beside(node, parent)
    texts = []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
        texts += [f"abs({text})", f"max(0, {text})"]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        after_floor = PRIOR["change_binary_operator"] / PRIOR["add_function_around_expression"] * DECAY
        ctx.ranked(node, [f"int({text})", f"round({text})"], "add_function_around_expression", 2, after_floor)
    iterated = isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node
    collection = kinds & {"seq", "dict"} or callee in ("set", "keys", "values", "items")
    if iterated and callee not in ("range", "enumerate", "zip", "sorted", "reversed") or (
            isinstance(parent, ast.Return) and collection):
        texts.append(f"sorted({text})")
    generator = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and any(
        isinstance(n, (ast.Yield, ast.YieldFrom)) or isinstance(n, ast.Return) and (
            isinstance(n.value, ast.GeneratorExp) or isinstance(n.value, ast.Call) and _callee(n.value) in _ITERATORS)
        for d in facts.functions.get(callee, [])[:1] for n in ast.walk(d))  # the module's own iterator
    if not iterated and (callee in _ITERATORS | {"keys", "values", "items"} or generator) and isinstance(
            parent, (ast.Return, ast.Assign, ast.Compare)):
        texts.append(f"list({text})")  # an iterator (or the module's own generator) used twice
    textual = "str" in kinds or isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and (
        "texts" in facts.kinds_of(node.value))
    if textual and beside is not None and not is_str(beside):
        texts.append(f"int({text})")  # text from input() or split() used as a number
    elif textual and isinstance(node, ast.Name) and isinstance(parent, (ast.Dict, ast.Return, ast.keyword)):
        texts += [f"float({text})", f"int({text})"]  # parsed text stored or returned as text
    if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(parent, ast.FormattedValue) and (
            parent.format_spec is None and parent.conversion == -1 and "str" not in kinds):
        _formatted_as_int(node, ctx)  # f"{size} B" that printed "1.0 B"
    stringy = textual or callee in ("str", "repr", "format", "join", "lower", "upper", "strip")
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) and not stringy and isinstance(
            parent, ast.BinOp) and isinstance(parent.op, ast.Add) and is_str(beside):
        texts.append(f"str({text})")
    ctx.ranked(node, texts, "add_function_around_expression", 2)


def _formatted_as_int(node: ast.Name | ast.Attribute, ctx: MutationSite) -> None:
    """``f"{n} B"`` -> ``f"{int(n)} B"``: a number formatted whole (a float ``1.0`` printed as
    ``1``); when the statement formats the same value more than once (``f"{n}B" if gnu else
    f"{n} Bytes"``) one more mutant wraps every occurrence, as the fix of such a line does."""
    text = ctx.src.seg(node)
    stmt = ctx.statement_of(node)
    same = [n for n in ast.walk(stmt) if isinstance(n, type(node))
            and isinstance(ctx.parents.get(n), ast.FormattedValue)
            and ctx.parents[n].format_spec is None and ctx.parents[n].conversion == -1
            and ctx.src.seg(n) == text] if stmt is not None else []
    prior = PRIOR["add_function_around_expression"]
    ctx.replace(node, f"int({text})", "add_function_around_expression", prior * DECAY)
    if len(same) > 1 and same[0] is node:  # once per statement, at its first occurrence
        ctx.add("add_function_around_expression", node,
                [(*ctx.src.span(n), f"int({text})") for n in same], prior,
                description=f"wrapped every `{short(text)}` of the line's f-strings in `int()`")
