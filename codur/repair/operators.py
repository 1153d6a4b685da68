"""Mutation operators on expressions: small, exact-span source edits of one AST node.

Each operator is a function ``(node, ctx)`` registered for an AST type that adds
:class:`Change` objects to the context (statement operators live in ``statements.py``).
They cover the classic single-edit bug fixes (range upper bound +1, dropped ``continue``
guard, dropped ``/ 100``, flipped comparison, loop condition, missing f-prefix, index
shifted by one) through general operators: +-1 on bounds, indices, slices and integer
literals; comparison, boolean, arithmetic and augmented-assignment operator swaps;
swapped call arguments and operands; negated, removed or dropped conditions; any/all,
min/max and method-name swaps; True/False swaps; and variable-misuse name swaps.
``prior`` (0..1) says how often the edit class fixes real bugs; it orders mutants on
equally suspicious lines.
"""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass, field

from codur.repair.source import Edit, Source


@dataclass(frozen=True)
class Change:
    """One candidate edit, before it is checked to compile."""

    operator: str
    line: int
    edits: tuple[Edit, ...]
    description: str
    prior: float


@dataclass
class Context:
    """What operators know about the statement being mutated."""

    src: Source
    parents: dict[ast.AST, ast.AST]
    scope_names: tuple[str, ...] = ()
    index_names: tuple[str, ...] = ()  # scope names used inside subscripts
    accumulators: frozenset[str] = frozenset()  # names initialised to 0, "", [] ...
    in_loop: bool = False
    siblings: int = 1
    changes: list[Change] = field(default_factory=list)

    def free(self, slot: ast.AST) -> bool:
        """True if any expression may replace ``slot`` without parentheses."""
        parent = self.parents.get(slot)
        return (isinstance(parent, (ast.stmt, ast.keyword, ast.Slice, ast.List, ast.Tuple, ast.Set,
                                    ast.Dict, ast.comprehension, ast.FormattedValue))
                or isinstance(parent, ast.Call) and parent.func is not slot
                or isinstance(parent, ast.Subscript) and parent.slice is slot)

    def fill(self, slot: ast.AST, value: ast.AST) -> str:
        """Source of ``value`` to put where ``slot`` is, parenthesized only when needed."""
        text = self.src.seg(value)
        if isinstance(value, (ast.Tuple, ast.NamedExpr, ast.Starred)):
            return f"({text})"
        return text if self.free(slot) else self.src.operand(value)

    def replace(self, node: ast.AST, new: str, operator: str, prior: float, line: int = 0) -> None:
        start, end = self.src.span(node)
        self.add(operator, node, [(start, end, new)], prior, line)

    def add(self, operator: str, node: ast.AST, spans: list[tuple[int, int, str]], prior: float,
            line: int = 0, description: str = "") -> None:
        edits = tuple(Edit(s, e, new) for s, e, new in spans)
        if not description:
            old = " / ".join(self.src.text[s:e].strip() for s, e, _ in spans)
            description = f"replaced `{old}` with `{' / '.join(n.strip() for *_, n in spans)}`"
        self.changes.append(Change(operator, line or node.lineno, edits, description, prior))


SYM = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
        ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
        ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
        ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
        ast.LShift: "<<", ast.RShift: ">>", ast.MatMult: "@", ast.And: "and", ast.Or: "or"}
_CMP_SWAPS = {"<": ["<=", ">"], "<=": ["<", ">="], ">": [">=", "<"], ">=": [">", "<="],
              "==": ["!="], "!=": ["=="], "is": ["is not"], "is not": ["is"],
              "in": ["not in"], "not in": ["in"]}
BIN_SWAPS = {"+": ["-", "*"], "-": ["+"], "*": ["/", "+"], "/": ["*", "//"], "//": ["/", "%"],
              "%": ["//"], "**": ["*"], "&": ["|"], "|": ["&"], "<<": [">>"], ">>": ["<<"]}
_NON_COMMUTATIVE = {"-", "/", "//", "%", "**"}
_FUNC_SWAPS = {"any": "all", "all": "any", "min": "max", "max": "min"}
_METHOD_SWAPS = {"startswith": "endswith", "endswith": "startswith", "lower": "upper",
                 "upper": "lower", "lstrip": "rstrip", "rstrip": "lstrip", "find": "rfind",
                 "rfind": "find", "index": "rindex", "floor": "ceil", "ceil": "floor",
                 "keys": "values", "values": "keys", "ljust": "rjust", "rjust": "ljust"}
_FSTRING_FIELD = re.compile(r"\{[A-Za-z_][\w.\[\]'\"]*(![rsa])?(:[^{}]*)?\}")


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _pattern(sym: str) -> str:
    if sym[0].isalpha():
        return r"\b" + sym.replace(" ", r"\s+") + r"\b"
    return re.escape(sym)


def shifted(node: ast.expr, delta: int, src: Source) -> str:
    """Source of ``node`` plus ``delta`` (+1/-1), folding integer literals: ``n - 1`` -> ``n``."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return str(node.value + delta)
    if (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub))
            and isinstance(node.right, ast.Constant) and type(node.right.value) is int):
        value = (node.right.value if isinstance(node.op, ast.Add) else -node.right.value) + delta
        left = src.seg(node.left)
        return left if value == 0 else f"{left} {'+' if value > 0 else '-'} {abs(value)}"
    text = src.seg(node)
    if isinstance(node, (ast.BoolOp, ast.Compare, ast.IfExp, ast.Lambda, ast.NamedExpr)) or (
            isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)) or (
            isinstance(node, ast.BinOp) and SYM[type(node.op)] in "&|^<<>>"):
        text = f"({text})"
    return f"{text} {'+' if delta > 0 else '-'} 1"


def plus_minus(node: ast.expr, ctx: Context, operator: str, prior: float) -> None:
    """Replace ``node`` by itself +1 and -1 (parenthesized where precedence needs it)."""
    if isinstance(node, (ast.Constant, ast.Starred)) and type(getattr(node, "value", 0)) is not int:
        return
    parent = ctx.parents.get(node)
    bare = isinstance(node, ast.Constant) or ctx.free(node) or isinstance(parent, ast.Compare) or (
        isinstance(parent, ast.BinOp) and (isinstance(parent.op, ast.Add)
                                           or isinstance(parent.op, ast.Sub) and parent.left is node))
    for delta in (1, -1):
        text = shifted(node, delta, ctx.src)
        ctx.replace(node, text if bare else f"({text})", operator, prior)


def op_compare(node: ast.Compare, ctx: Context) -> None:
    operands = [node.left, *node.comparators]
    for i, op in enumerate(node.ops):
        sym = SYM[type(op)]
        span = ctx.src.token(operands[i], operands[i + 1], _pattern(sym))
        for new in _CMP_SWAPS[sym] if span else ():
            ctx.add("comparison_swap", node, [(*span, new)], 1.0)


def op_binop(node: ast.BinOp, ctx: Context) -> None:
    sym = SYM[type(node.op)]
    span = ctx.src.token(node.left, node.right, _pattern(sym))
    for new in BIN_SWAPS.get(sym, []) if span else ():
        ctx.add("arithmetic_swap", node, [(*span, new)], 0.9)
    for keep in (node.left, node.right):
        ctx.replace(node, ctx.fill(node, keep), "drop_operand", 0.85)
    if isinstance(node.op, (ast.Mult, ast.FloorDiv, ast.Mod)):
        # a 1-based count used as a 0-based offset: number * size -> (number - 1) * size
        for operand in (node.left, node.right):
            if isinstance(operand, ast.Name):
                plus_minus(operand, ctx, "operand_shift", 0.75)
    if sym in _NON_COMMUTATIVE:
        (ls, le), (rs, re_) = ctx.src.span(node.left), ctx.src.span(node.right)
        ctx.add("swap_operands", node, [(ls, le, ctx.src.operand(node.right)),
                                        (rs, re_, ctx.src.operand(node.left))], 0.8,
                description=f"swapped the operands of `{ctx.src.seg(node)}`")


def op_boolop(node: ast.BoolOp, ctx: Context) -> None:
    sym = SYM[type(node.op)]
    spans = [ctx.src.token(a, b, _pattern(sym)) for a, b in itertools.pairwise(node.values)]
    if all(spans):
        new = "or" if sym == "and" else "and"
        ctx.add("boolean_swap", node, [(*s, new) for s in spans], 0.95)
    for i, value in enumerate(node.values):
        if len(node.values) == 2:
            ctx.replace(node, ctx.fill(node, node.values[1 - i]), "drop_condition", 0.85)
        else:
            prev = node.values[i - 1] if i else None
            start = ctx.src.span(prev)[1] if prev else ctx.src.span(value)[0]
            end = ctx.src.span(value)[1] if prev else ctx.src.span(node.values[1])[0]
            ctx.add("drop_condition", value, [(start, end, "")], 0.85,
                    description=f"dropped the condition `{ctx.src.seg(value)}`")


def op_unaryop(node: ast.UnaryOp, ctx: Context) -> None:
    if isinstance(node.op, ast.Not):
        ctx.replace(node, ctx.fill(node, node.operand), "negate_condition", 0.9)


def negate(node: ast.expr, ctx: Context, prior: float = 0.85) -> None:
    """Wrap a condition in ``not`` (the removal of an existing ``not`` is op_unaryop's)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return
    text = ctx.src.seg(node)
    simple = isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Compare))
    ctx.replace(node, f"not {text}" if simple else f"not ({text})", "negate_condition", prior)


def op_constant(node: ast.Constant, ctx: Context) -> None:
    value = node.value
    if isinstance(value, bool):
        ctx.replace(node, str(not value), "boolean_constant", 0.95)
    elif isinstance(value, int):
        plus_minus(node, ctx, "constant_shift", 0.8)
    elif (isinstance(value, str) and _FSTRING_FIELD.search(value)
          and not isinstance(ctx.parents.get(node), ast.JoinedStr)):
        start, _ = ctx.src.span(node)
        if ctx.src.text[start] in "\"'rR":
            ctx.add("fstring_prefix", node, [(start, start, "f")], 1.0,
                    description=f"added the f-string prefix to `{_short(ctx.src.seg(node))}`")


def op_call(node: ast.Call, ctx: Context) -> None:
    func = node.func
    if isinstance(func, ast.Name) and func.id in _FUNC_SWAPS:
        ctx.replace(func, _FUNC_SWAPS[func.id], "builtin_swap", 0.95)
    if isinstance(func, ast.Attribute) and func.attr in _METHOD_SWAPS:
        end = ctx.src.span(func)[1]
        ctx.add("method_swap", func, [(end - len(func.attr), end, _METHOD_SWAPS[func.attr])], 0.8)
    if isinstance(func, ast.Name) and func.id == "range":
        for arg in node.args:
            plus_minus(arg, ctx, "bound_shift", 1.0)
    if isinstance(func, ast.Name) and func.id == "len":
        plus_minus(node, ctx, "bound_shift", 0.9)  # len(xs) -> len(xs) - 1
    args = [a for a in node.args if not isinstance(a, ast.Starred)]
    for a, b in itertools.pairwise(args):
        (as_, ae), (bs, be) = ctx.src.span(a), ctx.src.span(b)
        ctx.add("swap_arguments", node, [(as_, ae, ctx.src.seg(b)), (bs, be, ctx.src.seg(a))], 0.8,
                description=f"swapped the arguments `{ctx.src.seg(a)}` and `{ctx.src.seg(b)}`")


def op_subscript(node: ast.Subscript, ctx: Context) -> None:
    index = node.slice
    if isinstance(index, ast.Slice):
        for bound in (index.lower, index.upper):
            if bound is not None:
                plus_minus(bound, ctx, "slice_shift", 1.0)
    elif not isinstance(index, ast.Tuple) and not (
            isinstance(index, ast.Constant) and isinstance(index.value, str)):
        plus_minus(index, ctx, "index_shift", 1.0)


def op_name(node: ast.Name, ctx: Context) -> None:
    parent = ctx.parents.get(node)
    if not isinstance(node.ctx, ast.Load) or (isinstance(parent, ast.Call) and parent.func is node):
        return
    if node.id not in ctx.scope_names:
        return
    if isinstance(parent, ast.BinOp):
        parent = ctx.parents.get(parent)
    # a misused index (b[i] for b[j]) is a classic slip: index names first
    if isinstance(parent, ast.Slice) or isinstance(parent, ast.Subscript) and parent.value is not node:
        for other in [n for n in ctx.index_names if n != node.id][:8]:
            ctx.replace(node, other, "variable_swap", 0.85)
    for other in [n for n in ctx.scope_names if n != node.id][:8]:
        ctx.replace(node, other, "variable_swap", 0.5)


def op_ifexp(node: ast.IfExp, ctx: Context) -> None:
    negate(node.test, ctx)


def op_comprehension(node: ast.comprehension, ctx: Context) -> None:
    for cond in node.ifs:
        negate(cond, ctx)


#: Expression operators by node type (statement operators: ``statements.py``).
OPERATORS = {ast.Compare: op_compare, ast.BinOp: op_binop, ast.BoolOp: op_boolop,
             ast.UnaryOp: op_unaryop, ast.Constant: op_constant, ast.Call: op_call,
             ast.Subscript: op_subscript, ast.Name: op_name, ast.IfExp: op_ifexp,
             ast.comprehension: op_comprehension}
