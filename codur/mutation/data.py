"""Module-level data a suspicious function reads, and regular-expression quantifiers.

Localization scores the lines the failing tests run inside functions; a module's top-level
statements run at import time, before any test, so a fault in a module-level table (a
format table, a compiled pattern, a constant) gets no score of its own even though the
function that reads it does. :func:`read_data` gives the top-level assignments whose names a
ranked function reads the score of the most suspicious line reading them, so their constants
are mutated beside that line's own edits, in the order of the operators' priors. (Half that
score put parse 1.20.1's fix at mutant 1,154 of 1,425, past the 400 tried; the reading line's
score puts it at 270.)

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

#: A quantifier (group ``q``) after a regex atom: a class ``]``, a group ``)``, an escape ``\d`` or ``.``.
_QUANTIFIER = re.compile(r"(?:[\])]|\\[dDwWsS.]|\.)"
                         r"(?P<q>\{(?P<low>\d+)(?P<comma>,(?P<high>\d*))?\}|(?P<star>[+*]))(?![+*?])")


def read_data(rel: str, tree: ast.Module, scores: dict[tuple[str, int], float]) -> dict[tuple[str, int], float]:
    """(file, line) -> score for the lines of ``tree``'s top-level assignments (``NAME = ...``,
    ``NAME: T = ...``) whose value holds a constant and whose name a scored line of ``rel``
    reads: the data is as suspicious as the most suspicious line that reads it (the use of a
    definition that runs before any test). Lines ``scores`` already has are left out."""
    best: dict[str, float] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            score = scores.get((rel, node.lineno), 0.0)
            if score > best.get(node.id, 0.0):
                best[node.id] = score
    out: dict[tuple[str, int], float] = {}
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        names = [t.id for t in targets if isinstance(t, ast.Name) and t.id in best]
        value = getattr(stmt, "value", None)
        if not names or value is None or not any(isinstance(n, ast.Constant) for n in ast.walk(value)):
            continue
        score = max(best[n] for n in names)
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
