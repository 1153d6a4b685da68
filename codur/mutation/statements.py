"""Statement-level mutation operators, and the walk that applies every operator.

Statement operators: dropped guards (``if ...: continue``), deleted jumps and
increments, negated or removed ``if``/``while``/``assert`` conditions and more or less
specific ones (an ``and``/``or`` clause built from the function's other conditions),
changed return values (None <-> 0 / False / [] / "", negated boolean results),
augmented operator swaps (``+=`` <-> ``-=``, ``^=`` <-> ``&=`` <-> ``|=``), ``+=`` -> ``=``
and ``=`` -> ``+=`` in loops, +-1 on bound assignments (``lo = mid`` -> ``lo = mid + 1``),
an empty initializer given an element (``[]`` -> ``[[]]``), and a statement missing from
a block, copied from a sibling branch or another loop body (``add_statement``); the
update a never-ending ``while`` lacks, the flush after a batching loop, a lost result
assigned back and the link back of a doubly linked node (:mod:`codur.mutation.missing`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from codur.mutation.missing import (
    advance_loop_variable,
    dedent_last_statement,
    flush_after_loop,
    keep_discarded_result,
    mirror_link,
    return_at_end,
)
from codur.mutation.names import BUILTINS
from codur.mutation.operators import BIN_SWAPS, OPERATORS
from codur.mutation.patterns import PRIOR
from codur.mutation.site import SYM, Change, MutationSite, add_clauses, negate, plus_minus

_JUMPS = (ast.Continue, ast.Break, ast.Return, ast.Raise)
_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While)


def op_augassign(node: ast.AugAssign, ctx: MutationSite) -> None:
    sym = SYM[type(node.op)]
    span = ctx.src.token(node.target, node.value, re.escape(sym + "="))
    for new in BIN_SWAPS.get(sym, []) if span else ():
        ctx.add("change_binary_operator", node, [(*span, new + "=")])
    if span:
        ctx.add("augassign_to_assign", node, [(*span, "=")], 0.7)


def op_assign(node: ast.Assign, ctx: MutationSite) -> None:
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
    if isinstance(value, ast.List) and not value.elts:  # rows = [] -> rows = [[]]
        for new in ("[[]]", "[0]"):
            ctx.replace(value, new, "add_elements_to_iterable")


def delete_statement(node: ast.stmt, ctx: MutationSite, prior: float) -> None:
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


def _return_value(node: ast.Return, ctx: MutationSite) -> None:
    """Changed return values: a negated condition, None <-> 0 / False / [] / ""."""
    value = node.value
    if isinstance(value, (ast.Compare, ast.BoolOp)):
        negate(value, ctx, PRIOR["change_unary_operator"] * 0.8)
    elif value is None or isinstance(value, ast.Constant) and value.value is None:
        start, end = ctx.src.span(node)
        for new in ("return 0", "return False", "return []", 'return ""'):
            ctx.add("return_value", node, [(start, end, new)], 0.6)
    elif isinstance(value, ast.Constant) and not value.value and value.value is not None:
        ctx.replace(value, "None", "return_value", 0.6)  # 0, False, "" -> None


def _if(node: ast.If, ctx: MutationSite) -> None:
    """A negated or removed condition, a guarding jump deleted, clauses added."""
    negate(node.test, ctx)
    if not (isinstance(node.test, ast.Constant) and node.test.value is True):
        ctx.replace(node.test, "True", "remove_condition", 0.6)
    if len(node.body) == 1 and isinstance(node.body[0], _JUMPS) and not node.orelse:
        delete_statement(node, ctx, 0.9)
    add_clauses(node.test, ctx)


def _while(node: ast.While, ctx: MutationSite) -> None:
    """A negated condition, the loop variable advanced, clauses added."""
    negate(node.test, ctx, PRIOR["change_unary_operator"] * 0.8)
    advance_loop_variable(node, ctx)
    if not isinstance(node.test, ast.Constant):
        add_clauses(node.test, ctx)


def _expression(node: ast.Expr, ctx: MutationSite) -> None:
    """A call deleted or its discarded result kept; an arithmetic result kept."""
    if isinstance(node.value, ast.Call):
        delete_statement(node, ctx, 0.5)
        keep_discarded_result(node, ctx)
    elif isinstance(node.value, ast.BinOp):
        keep_discarded_result(node, ctx)


#: the operators of one kind of statement, before those every block or loop gets
_BY_STATEMENT = {
    ast.If: _if,
    ast.While: _while,
    ast.Assert: lambda node, ctx: negate(node.test, ctx, PRIOR["change_unary_operator"] * 0.8),
    ast.Continue: lambda node, ctx: delete_statement(node, ctx, 0.8),
    ast.Break: lambda node, ctx: delete_statement(node, ctx, 0.8),
    ast.AugAssign: lambda node, ctx: delete_statement(node, ctx, 0.6),
    ast.Expr: _expression,
    ast.Return: _return_value,
    ast.Assign: mirror_link,
}


def op_statement(node: ast.stmt, ctx: MutationSite) -> None:
    """Statement-level operators: guards, conditions, jumps, deletions, missing statements."""
    return_at_end(node, ctx)
    own = _BY_STATEMENT.get(type(node))
    if own is not None:
        own(node, ctx)
    if isinstance(node, _BLOCKS):
        add_statement(node, ctx)
    if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        flush_after_loop(node, ctx)
    if isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While)):
        dedent_last_statement(node, ctx)


def _donors(node: ast.stmt, block: list[ast.stmt], ctx: MutationSite) -> list[list[ast.stmt]]:
    """Blocks a statement missing from ``block`` (a block of ``node``) may be copied from:
    the other branches of the same ``if``; for a loop body, the bodies of the function's
    other loops, nearest first."""
    own = [b for b in (node.body, node.orelse) if b and b is not block]
    while own and len(own[-1]) == 1 and isinstance(own[-1][0], ast.If):  # an elif chain
        own[-1:] = [b for b in (own[-1][0].body, own[-1][0].orelse) if b]
    if isinstance(node, ast.If) or block is not node.body:
        return own
    func = ctx.facts.owner.get(node)
    loops = [s for s in ast.walk(func or ctx.src.tree) if isinstance(s, (ast.For, ast.AsyncFor, ast.While))
             and s is not node and ctx.facts.owner.get(s) is func]
    return own + [s.body for s in sorted(loops, key=lambda s: abs(s.lineno - node.lineno))]


def add_statement(node: ast.stmt, ctx: MutationSite) -> None:
    """A statement missing at the end of a block of ``node`` (before its closing jump), copied
    from a donor block (:func:`_donors`): an append or other call, an augmented assignment,
    an assignment or a return whose names are all bound. At most 2 per block."""
    facts, src = ctx.facts, ctx.src
    visible = set(facts.scope_of(node).bound) | set(facts.scopes[None].bound) | BUILTINS
    for block in (node.body, node.orelse):
        if not block or block[0].lineno == node.lineno:
            continue
        last = block[-1]
        anchor = last if isinstance(last, _JUMPS) else None
        span = src.line_span(anchor if anchor else last)
        if span is None:
            continue
        pos = span[0] if anchor else span[1]
        line = src.lines[block[0].lineno - 1]
        newline = line[len(line.rstrip("\r\n")):] or "\n"
        lead = "" if pos == 0 or src.text[pos - 1] == "\n" else newline
        present = {src.seg(s) for s in block}
        found: list[tuple[str, int]] = []
        for donor in _donors(node, block, ctx):
            for stmt in donor:
                text = src.seg(stmt)
                if stmt.lineno != stmt.end_lineno or text in present or text in dict(found) or not (
                        isinstance(stmt, (ast.AugAssign, ast.Assign)) or isinstance(stmt, ast.Expr)
                        and isinstance(stmt.value, ast.Call) or isinstance(stmt, ast.Return) and not anchor):
                    continue
                if {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)} <= visible:
                    found.append((text, stmt.lineno))
        for i, (text, origin) in enumerate(found[:2]):
            ctx.add("add_statement", node, [(pos, pos, f"{lead}{src.indent(block[0])}{text}{newline}")],
                    0.55 * 0.9 ** i, line=(anchor or last).lineno,
                    description=f"added `{text}` (as on line {origin}) at the end of the block")


_STATEMENT_OPERATORS = {ast.AugAssign: (op_augassign,), ast.Assign: (op_assign,)}


def expression_nodes(stmt: ast.stmt) -> Iterator[ast.AST]:
    """Nodes in the statement's own header, not in nested statement bodies; an annotated
    assignment's annotation left out (a local's is never evaluated, PEP 526: its mutants are
    equivalent)."""
    if isinstance(stmt, (ast.If, ast.While)):
        roots: list[ast.AST] = [stmt.test]
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        roots = [stmt.iter]
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        roots = list(stmt.items)
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        roots = [d for d in stmt.args.defaults + stmt.args.kw_defaults if d is not None]
    elif isinstance(stmt, ast.AnnAssign):
        roots = [n for n in (stmt.target, stmt.value) if n is not None]
    elif isinstance(stmt, (ast.ClassDef, ast.Try, ast.Match, getattr(ast, "TryStar", ast.Try))):
        roots = []
    else:
        roots = [stmt]
    for root in roots:
        yield from ast.walk(root)


def changes_for(stmt: ast.stmt, ctx: MutationSite) -> list[Change]:
    """All candidate changes of one statement (unchecked: may not compile)."""
    ctx.changes = []
    op_statement(stmt, ctx)
    for node in expression_nodes(stmt):
        for operator in OPERATORS.get(type(node)) or _STATEMENT_OPERATORS.get(type(node), ()):
            operator(node, ctx)
    return ctx.changes
