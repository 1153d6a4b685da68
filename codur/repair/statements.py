"""Statement-level mutation operators, and the walk that applies every operator.

Statement operators: dropped guards (``if ...: continue``), deleted jumps and
increments, negated or removed ``if``/``while``/``assert`` conditions, changed return
values (None <-> 0 / False / [] / "", negated boolean results), augmented
assignment swaps (``+=`` <-> ``-=``, ``+=`` -> ``=``), ``=`` -> ``+=`` in loops, and +-1 on
bound assignments (``lo = mid`` -> ``lo = mid + 1``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from codur.repair.operators import BIN_SWAPS, OPERATORS, SYM, Change, Context, negate, plus_minus

_JUMPS = (ast.Continue, ast.Break, ast.Return, ast.Raise)


def op_augassign(node: ast.AugAssign, ctx: Context) -> None:
    sym = SYM[type(node.op)]
    span = ctx.src.token(node.target, node.value, re.escape(sym + "="))
    for new in [op + "=" for op in BIN_SWAPS.get(sym, [])[:1]] + ["="] if span else ():
        ctx.add("augassign_swap", node, [(*span, new)], 0.9)


def op_assign(node: ast.Assign, ctx: Context) -> None:
    value = node.value
    if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and (
            isinstance(value, ast.Name) or isinstance(value, ast.BinOp)
            and isinstance(value.op, (ast.Add, ast.Sub)) and isinstance(value.right, ast.Constant)):
        plus_minus(value, ctx, "bound_shift", 0.75)  # lo = mid -> lo = mid + 1
    if ctx.in_loop and len(node.targets) == 1 and not isinstance(node.targets[0], ast.Tuple):
        span = ctx.src.token(node.targets[0], node.value, r"(?<![=!<>])=(?!=)")
        if span:
            target = getattr(node.targets[0], "id", None)
            prior = 0.9 if target in ctx.accumulators else 0.7  # total = x -> total += x
            ctx.add("assign_to_augassign", node, [(*span, "+=")], prior)


def delete_statement(node: ast.stmt, ctx: Context, prior: float) -> None:
    """Delete a whole statement (``pass`` if it is alone in its block)."""
    span = ctx.src.line_span(node)
    if span is None:
        return
    last = ctx.src.lines[node.end_lineno - 1]
    newline = last[len(last.rstrip("\r\n")):] or "\n"
    new = "" if ctx.siblings > 1 else f"{ctx.src.indent(node)}pass{newline}"
    first = ctx.src.seg(node).splitlines()[0].strip()
    ctx.add("delete_statement", node, [(*span, new)], prior,
            description=f"deleted `{first}`" + (" ..." if node.end_lineno > node.lineno else ""))


def op_statement(node: ast.stmt, ctx: Context) -> None:
    """Statement-level operators: guards, conditions, jumps, deletions."""
    if isinstance(node, ast.If):
        negate(node.test, ctx)
        if not (isinstance(node.test, ast.Constant) and node.test.value is True):
            ctx.replace(node.test, "True", "remove_condition", 0.6)
        if len(node.body) == 1 and isinstance(node.body[0], _JUMPS) and not node.orelse:
            delete_statement(node, ctx, 0.9)
    elif isinstance(node, (ast.While, ast.Assert)):
        negate(node.test, ctx, 0.7)
    elif isinstance(node, (ast.Continue, ast.Break)):
        delete_statement(node, ctx, 0.8)
    elif isinstance(node, ast.AugAssign):
        delete_statement(node, ctx, 0.6)
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        delete_statement(node, ctx, 0.5)
    elif isinstance(node, ast.Return):
        _return_value(node, ctx)


def _return_value(node: ast.Return, ctx: Context) -> None:
    """Changed return values: a negated condition, None <-> 0 / False / [] / ""."""
    value = node.value
    if isinstance(value, (ast.Compare, ast.BoolOp)):
        negate(value, ctx, 0.7)
    elif value is None or isinstance(value, ast.Constant) and value.value is None:
        start, end = ctx.src.span(node)
        for new in ("return 0", "return False", "return []", 'return ""'):
            ctx.add("return_value", node, [(start, end, new)], 0.6)
    elif isinstance(value, ast.Constant) and not value.value and value.value is not None:
        ctx.replace(value, "None", "return_value", 0.6)  # 0, False, "" -> None


_STATEMENT_OPERATORS = {ast.AugAssign: op_augassign, ast.Assign: op_assign}


def expression_nodes(stmt: ast.stmt) -> Iterator[ast.AST]:
    """Nodes in the statement's own header, not in nested statement bodies."""
    if isinstance(stmt, (ast.If, ast.While)):
        roots: list[ast.AST] = [stmt.test]
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        roots = [stmt.iter]
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        roots = list(stmt.items)
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        roots = [d for d in stmt.args.defaults + stmt.args.kw_defaults if d is not None]
    elif isinstance(stmt, (ast.ClassDef, ast.Try, ast.Match, getattr(ast, "TryStar", ast.Try))):
        roots = []
    else:
        roots = [stmt]
    for root in roots:
        yield from ast.walk(root)


def changes_for(stmt: ast.stmt, ctx: Context) -> list[Change]:
    """All candidate changes of one statement (unchecked: may not compile)."""
    ctx.changes = []
    op_statement(stmt, ctx)
    for node in expression_nodes(stmt):
        operator = OPERATORS.get(type(node)) or _STATEMENT_OPERATORS.get(type(node))
        if operator is not None:
            operator(node, ctx)
    return ctx.changes
