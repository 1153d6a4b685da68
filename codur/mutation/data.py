"""Module-level data a suspicious function reads, and regular-expression quantifiers.

Localization scores the lines the failing tests run inside functions; a module's top-level
statements run at import time, before any test, so a fault in a module-level table (a
format table, a compiled pattern, a constant) gets no score of its own even though the
function that reads it does. :func:`read_data` gives the top-level assignments whose names a
ranked function reads the score of that function's best line, discounted
(:data:`DATA_DISCOUNT`): their constants are mutated after the function's own statements.

:func:`op_regex_quantifier` mutates the quantifiers of a string that holds a regular
expression: ``{n}`` is widened to ``{1,n}`` and ``{n,}``, ``{m,n}`` to ``{m,}``, ``+`` and
``*`` swap. Quantifier changes are one of the fault classes of regular expressions that
MutRex mutates (Arcaini, Gargantini and Riccobene, "MutRex: A Mutation-Based Generator of
Fault Detecting Strings for Regular Expressions", ICST Workshops 2017).
"""

from __future__ import annotations

import ast
import re

from codur.mutation.site import MutationSite

#: Factor on the reading function's best score for the module-level data it reads.
DATA_DISCOUNT = 0.5
#: A quantifier (group ``q``) after a regex atom: a class ``]``, a group ``)``, an escape ``\d`` or ``.``.
_QUANTIFIER = re.compile(r"(?:[\])]|\\[dDwWsS.]|\.)"
                         r"(?P<q>\{(?P<low>\d+)(?P<comma>,(?P<high>\d*))?\}|(?P<star>[+*]))(?![+*?])")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def read_data(rel: str, tree: ast.Module, scores: dict[tuple[str, int], float]) -> dict[tuple[str, int], float]:
    """(file, line) -> score for the lines of ``tree``'s top-level assignments (``NAME = ...``,
    ``NAME: T = ...``) whose value holds a constant and whose name a function with a scored
    line of ``rel`` reads; the score is that function's best line's × :data:`DATA_DISCOUNT`.
    Lines ``scores`` already has are left out."""
    best: dict[str, float] = {}
    for func in (n for n in ast.walk(tree) if isinstance(n, _FUNCS)):
        lines = range(func.lineno, (func.end_lineno or func.lineno) + 1)
        score = max((scores.get((rel, ln), 0.0) for ln in lines), default=0.0)
        if score <= 0:
            continue
        for name in {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}:
            best[name] = max(best.get(name, 0.0), score)
    out: dict[tuple[str, int], float] = {}
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        names = [t.id for t in targets if isinstance(t, ast.Name) and t.id in best]
        value = getattr(stmt, "value", None)
        if not names or value is None or not any(isinstance(n, ast.Constant) for n in ast.walk(value)):
            continue
        score = max(best[n] for n in names) * DATA_DISCOUNT
        for line in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1):
            if (rel, line) not in scores:
                out[(rel, line)] = score
    return out


def op_regex_quantifier(node: ast.Constant, ctx: MutationSite) -> None:
    """Widen or swap the quantifiers of a string literal that holds a regular expression:
    ``"[0-9]{6}"`` -> ``"[0-9]{1,6}"`` / ``"[0-9]{6,}"``, ``"\\d{1,2}"`` -> ``"\\d{1,}"``,
    ``"[a-z]+"`` <-> ``"[a-z]*"``. Only quantifiers after a regex atom (``]``, ``)``, ``\\d``-like
    escapes, ``.``) count, so a format field ``"{0}"`` is no quantifier."""
    if not isinstance(node.value, str) or isinstance(ctx.parents.get(node), ast.JoinedStr):
        return
    start, end = ctx.src.span(node)
    literal = ctx.src.text[start:end]
    shown = literal if len(literal) <= 40 else literal[:37] + "..."
    for match in _QUANTIFIER.finditer(literal):
        for new in _widened(match):
            edit = (start + match.start("q"), start + match.end("q"), new)
            ctx.add("change_regex_quantifier", node, [edit],
                    description=f"changed the regex quantifier `{match['q']}` to `{new}` in `{shown}`")


def _widened(match: re.Match) -> list[str]:
    """The replacements of one quantifier match of :data:`_QUANTIFIER`."""
    if match["star"]:
        return ["*" if match["star"] == "+" else "+"]
    low = int(match["low"])
    if not match["comma"]:  # {n}
        return [f"{{1,{low}}}", f"{{{low},}}"] if low > 1 else [f"{{{low},}}"]
    if match["high"]:  # {m,n}
        return [f"{{{low},}}"] + ([f"{{1,{match['high']}}}"] if low > 1 else [])
    return [f"{{{low - 1},}}"] if low else []  # {m,}
