"""Mutation operators on expressions: operators, operands and literals.

Each operator is a function ``(node, ctx)`` registered for an AST type in ``OPERATORS`` that
adds :class:`~codur.mutation.site.Change` objects to the site it is given (``site.py``). They are
named after the single-statement bug patterns of ``patterns.py``, which also gives their
priors. This module holds comparison, arithmetic, boolean and unary operator swaps, swapped
and dropped operands, +-1 on indices and slices, literal changes and added elements;
``identifiers.py`` the identifier and attribute edits; ``calls.py`` the call, argument and
wrapper edits; ``statements.py``
the statement operators and the walk that applies every operator.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Callable

from codur.mutation.calls import op_call, op_wrap
from codur.mutation.classes import op_own_class
from codur.mutation.data import op_regex_quantifier
from codur.mutation.identifiers import op_attribute, op_name
from codur.mutation.kinds import is_num, is_str
from codur.mutation.library import op_library_call, op_strip_result
from codur.mutation.patterns import DECAY, PRIOR
from codur.mutation.signatures import op_signature_keyword
from codur.mutation.site import SYM, MutationSite, negate, plus_minus, short

_CMP_SWAPS = {"<": ["<=", ">"], "<=": ["<", ">="], ">": [">=", "<"], ">=": [">", "<="],
              "==": ["!="], "!=": ["=="], "is": ["is not"], "is not": ["is"],
              "in": ["not in"], "not in": ["in"]}
BIN_SWAPS = {"+": ["-", "*"], "-": ["+"], "*": ["/", "+"], "/": ["*", "//"], "//": ["/", "%"],
             "%": ["//"], "**": ["*"], "&": ["|", "^"], "|": ["&", "^"], "^": ["&", "|"],
             "<<": [">>"], ">>": ["<<"]}
_COMMUTATIVE = {"*", "&", "|", "^"}  # swapped operands of these are equivalent mutants
_FSTRING_FIELD = re.compile(r"\{[A-Za-z_][\w.\[\]'\"]*(![rsa])?(:[^{}]*)?\}")


def _pattern(sym: str) -> str:
    if sym[0].isalpha():
        return r"\b" + sym.replace(" ", r"\s+") + r"\b"
    return re.escape(sym)



# ------------------------------------------------------------------ binary, boolean, unary operators

def op_compare(node: ast.Compare, ctx: MutationSite) -> None:
    operands = [node.left, *node.comparators]
    for i, op in enumerate(node.ops):
        sym = SYM[type(op)]
        span = ctx.src.token(operands[i], operands[i + 1], _pattern(sym))
        for new in _CMP_SWAPS[sym] if span else ():
            ctx.add("change_binary_operator", node, [(*span, new)])
        a, b = operands[i], operands[i + 1]
        if sym in ("in", "not in") and not isinstance(b, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Call)):
            (as_, ae), (bs, be) = ctx.src.span(a), ctx.src.span(b)  # `word in line` for `line in word`
            ctx.add("change_binary_operand", node, [(as_, ae, ctx.src.operand(b)), (bs, be, ctx.src.operand(a))],
                    description=f"swapped `{short(ctx.src.seg(a))}` and `{short(ctx.src.seg(b))}`")


def _leaves(node: ast.BinOp) -> list[ast.expr]:
    """Operands of a left-nested chain of one operator: ``x + sep + y`` -> [x, sep, y]."""
    out: list[ast.expr] = []
    while isinstance(node, ast.BinOp) and isinstance(node.left, ast.BinOp) and type(node.left.op) is type(node.op):
        out.insert(0, node.right)
        node = node.left
    return [node.left, node.right, *out]


def op_binop(node: ast.BinOp, ctx: MutationSite) -> None:
    sym = SYM[type(node.op)]
    span = ctx.src.token(node.left, node.right, _pattern(sym))
    text = sym == "+" and any(is_str(x) for x in (node.left, node.right))  # a concatenation
    for new in BIN_SWAPS.get(sym, []) if span and not text else ():
        ctx.add("change_binary_operator", node, [(*span, new)])
    for keep in (node.left, node.right):
        ctx.replace(node, ctx.fill(node, keep), "drop_operand")
    if isinstance(node.op, (ast.Mult, ast.FloorDiv, ast.Mod)):
        # a 1-based count used as a 0-based offset: number * size -> (number - 1) * size
        for operand in (node.left, node.right):
            if isinstance(operand, ast.Name):
                plus_minus(operand, ctx, "operand_shift")
    parent = ctx.parents.get(node)
    if sym in _COMMUTATIVE or isinstance(parent, ast.BinOp) and parent.left is node and type(parent.op) is type(
            node.op):
        return  # equivalent swaps, or an inner link of a chain (its top node swaps the leaves)
    leaves = _leaves(node)
    ordered = sym != "+" or any(is_str(x) or isinstance(x, (ast.List, ast.Tuple, ast.ListComp)) or isinstance(
        x, ast.Name) and ctx.facts.kinds_of(x) & {"seq", "str"} for x in leaves)
    factor = 1.0 if ordered else 0.5  # numbers, as far as we can tell: the swap is likely equivalent
    pairs = list(itertools.pairwise(leaves)) + ([(leaves[0], leaves[-1])] if len(leaves) > 2 else [])
    if sym not in ("-", "/", "**"):  # `4 % year`, `1 << n` for `n << 1`: rarely meant
        pairs = [(a, b) for a, b in pairs if not (is_num(a) or is_num(b))]
    for a, b in pairs[:3]:
        (as_, ae), (bs, be) = ctx.src.span(a), ctx.src.span(b)
        ctx.add("change_binary_operand", node, [(as_, ae, ctx.src.operand(b)), (bs, be, ctx.src.operand(a))],
                PRIOR["change_binary_operand"] * factor,
                description=f"swapped `{short(ctx.src.seg(a))}` and `{short(ctx.src.seg(b))}`")


def op_boolop(node: ast.BoolOp, ctx: MutationSite) -> None:
    sym = SYM[type(node.op)]
    spans = [ctx.src.token(a, b, _pattern(sym)) for a, b in itertools.pairwise(node.values)]
    if all(spans):
        new = "or" if sym == "and" else "and"
        ctx.add("change_binary_operator", node, [(*s, new) for s in spans])
    # dropping an `and` clause makes a condition less specific, dropping an `or` clause more
    operator = "less_specific_if" if sym == "and" else "more_specific_if"
    for i, value in enumerate(node.values):
        if len(node.values) == 2:
            ctx.replace(node, ctx.fill(node, node.values[1 - i]), operator)
        else:
            prev = node.values[i - 1] if i else None
            start = ctx.src.span(prev)[1] if prev else ctx.src.span(value)[0]
            end = ctx.src.span(value)[1] if prev else ctx.src.span(node.values[1])[0]
            ctx.add(operator, value, [(start, end, "")],
                    description=f"dropped the condition `{ctx.src.seg(value)}`")


def op_unaryop(node: ast.UnaryOp, ctx: MutationSite) -> None:
    if isinstance(node.op, (ast.Not, ast.USub, ast.UAdd, ast.Invert)):
        ctx.replace(node, ctx.fill(node, node.operand), "change_unary_operator")


def op_lambda(node: ast.Lambda, ctx: MutationSite) -> None:
    """A sort key that should be descending: ``key=lambda r: r[1]`` -> ``-r[1]``."""
    parent = ctx.parents.get(node)
    if isinstance(parent, ast.keyword) and parent.arg == "key" and not isinstance(node.body, ast.Tuple):
        ctx.replace(node.body, f"-{ctx.src.operand(node.body)}", "change_unary_operator")


# ------------------------------------------------------------------ literals

def op_constant(node: ast.Constant, ctx: MutationSite) -> None:
    """Change a literal: booleans and None (:func:`_boolean`, :func:`_none`), numbers
    (:func:`_numeric`), strings (:func:`_string`)."""
    value = node.value
    if isinstance(value, bool):
        _boolean(node, ctx)
    elif value is None:
        _none(node, ctx)
    elif isinstance(value, (int, float)):
        _numeric(node, ctx)
    elif isinstance(value, str):
        _string(node, ctx)


def _boolean(node: ast.Constant, ctx: MutationSite) -> None:
    """``True`` <-> ``False``, a flag of the scope in its place, ``None`` for a keyword argument."""
    parent = ctx.parents.get(node)
    ctx.replace(node, str(not node.value), "change_boolean_literal")
    if isinstance(parent, (ast.If, ast.While, ast.Return, ast.Assign, ast.keyword)):
        names = ctx.facts.nearest(node, "bool", limit=6)  # `while True` -> `while <flag>`
        flags = [n for n in names if "bool" in ctx.facts.scope_of(node).kinds.get(n, ())]
        ctx.ranked(node, flags, "change_boolean_literal", 2, 0.8)
    if isinstance(parent, ast.keyword):
        ctx.replace(node, "None", "change_boolean_literal", PRIOR["change_boolean_literal"] * 0.5)


def _none(node: ast.Constant, ctx: MutationSite) -> None:
    """``None`` -> ``False`` / ``True`` as a keyword argument or an assigned value."""
    if isinstance(ctx.parents.get(node), (ast.keyword, ast.Assign)):
        for new in ("False", "True"):
            ctx.replace(node, new, "change_boolean_literal", PRIOR["change_boolean_literal"] * 0.5)


def _string(node: ast.Constant, ctx: MutationSite) -> None:
    """A string with ``{field}`` made an f-string; a string of digits made a number."""
    value, parent = node.value, ctx.parents.get(node)
    if isinstance(parent, ast.JoinedStr):
        return
    if _FSTRING_FIELD.search(value):
        start, _ = ctx.src.span(node)
        if ctx.src.text[start] in "\"'rR":
            ctx.add("fstring_prefix", node, [(start, start, "f")],
                    description=f"added the f-string prefix to `{short(ctx.src.seg(node))}`")
    if value.strip().lstrip("-").isdigit():
        ctx.replace(node, str(int(value)), "change_constant_type")


def _numeric(node: ast.Constant, ctx: MutationSite) -> None:
    """Change numeric literal: +-1, 0 <-> 1.0 for floats, and the function's nearest other literals."""
    value = node.value
    if type(value) is int:
        plus_minus(node, ctx, "change_numeric_literal")
    elif value in (0.0, 1.0):
        ctx.replace(node, "1.0" if value == 0 else "0.0", "change_numeric_literal")
    scope = ctx.facts.scope_of(node)
    near = sorted((abs(line - node.lineno), v) for line, v in scope.numbers  # other lines: other roles
                  if line != node.lineno and v != value and not (type(value) is int and abs(v - value) == 1))
    ctx.ranked(node, [repr(v) for _, v in near], "change_numeric_literal", 1, DECAY)
    parent = ctx.parents.get(node)
    equality = isinstance(parent, ast.Compare) and all(isinstance(o, (ast.Eq, ast.NotEq, ast.In)) for o in parent.ops)
    if type(value) is int and (equality or isinstance(parent, ast.Dict) or (
            isinstance(parent, ast.Subscript) and parent.slice is node and value > 9)):
        ctx.replace(node, f'"{value}"', "change_constant_type")  # a key or a code kept as text


def op_display(node: ast.List | ast.Tuple | ast.Set, ctx: MutationSite) -> None:
    """Add elements to iterable: a missing direction in a list of numeric tuples."""
    items = [e for e in node.elts if isinstance(e, ast.Tuple) and e.elts and all(
        is_num(x) or isinstance(x, ast.UnaryOp) and is_num(x.operand) for x in e.elts)]
    if len(items) < 2 or len(items) != len(node.elts):
        return
    values = {tuple(ast.literal_eval(x) for x in e.elts) for e in items}
    missing = [tuple(-v for v in t) for t in sorted(values)]
    missing = [m for m in dict.fromkeys(missing) if m not in values]
    end = ctx.src.span(node.elts[-1])[1]
    for m in missing[:2]:
        text = "(" + ", ".join(map(str, m)) + ")"
        ctx.add("add_elements_to_iterable", node, [(end, end, f", {text}")],
                description=f"added `{text}` to `{short(ctx.src.seg(node))}`")


# ------------------------------------------------------------------ subscripts, conditional parts

def op_subscript(node: ast.Subscript, ctx: MutationSite) -> None:
    index = node.slice
    if isinstance(index, ast.Slice):
        for bound in (index.lower, index.upper):
            if bound is not None:
                plus_minus(bound, ctx, "slice_shift")
    else:
        for elt in index.elts if isinstance(index, ast.Tuple) else [index]:
            if not isinstance(elt, ast.Slice) and not is_str(elt):
                plus_minus(elt, ctx, "index_shift")
    if isinstance(node.ctx, ast.Load):
        ctx.replace(node, ctx.fill(node, node.value), "remove_subscript")



def op_ifexp(node: ast.IfExp, ctx: MutationSite) -> None:
    negate(node.test, ctx)


def op_comprehension(node: ast.comprehension, ctx: MutationSite) -> None:
    for cond in node.ifs:
        negate(cond, ctx)


Operator = Callable[[ast.AST, MutationSite], None]
#: Expression operators by node type (statement operators: ``statements.py``).
OPERATORS: dict[type, tuple[Operator, ...]] = {
    ast.Compare: (op_compare,), ast.BinOp: (op_binop, op_wrap), ast.BoolOp: (op_boolop,),
    ast.UnaryOp: (op_unaryop,), ast.Constant: (op_constant, op_regex_quantifier),
    ast.Call: (op_call, op_wrap, op_library_call, op_strip_result, op_signature_keyword),
    ast.Subscript: (op_subscript, op_wrap), ast.Name: (op_name, op_own_class, op_wrap),
    ast.Attribute: (op_attribute, op_wrap), ast.IfExp: (op_ifexp,), ast.comprehension: (op_comprehension,),
    ast.Lambda: (op_lambda,), ast.List: (op_display,), ast.Tuple: (op_display,), ast.Set: (op_display,)}
