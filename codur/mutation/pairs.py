"""Second-order mutants: two single edits of one file tried together (higher-order mutants,
Jia & Harman, "Higher Order Mutation Testing", IST 2009), in two families:

- *adjacent pairs* (:func:`pairs`): two edits on the same or adjacent lines
  (``|line difference| <= 1``), one fix spread over a statement and its neighbour;
- *function pairs* (:func:`function_pairs`): an *anchor*, a deleted guard
  (``if ...: continue/break/return`` removed, TBar's "remove a statement" template, Liu et al.,
  ISSTA 2019) or one of the :data:`ANCHORS` best-ranked singles, with a single of another
  statement of the same function more than one line away: a fix of two edits in one function,
  neither passing alone.

A pair's suspiciousness is the lower of its two edits', its prior their product; adjacent
pairs are sorted by that rank (:attr:`codur.mutation.mutants.Mutant.rank`), function pairs
by the product of their singles' ``score × prior`` (see there). :func:`second_order`
splits the ``max_pairs`` budget between the families (see there).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable

from codur.mutation.mutant import Mutant
from codur.validate.source import overlaps

#: best-ranked singles that anchor function pairs, besides every deleted guard
ANCHORS = 10
#: share of the pair budget kept for function pairs (see :func:`second_order`)
FUNCTION_SHARE = 0.25
_GUARD = "deleted `if "


def _pair(a: Mutant, b: Mutant) -> Mutant:
    first, second = sorted((a, b), key=lambda m: m.edits[0].start)
    return dataclasses.replace(
        first, operator=f"{first.operator}+{second.operator}", edits=first.edits + second.edits,
        description=f"{first.description}; line {second.line}: {second.description}",
        score=min(a.score, b.score), prior=a.prior * b.prior, order=2)


def pairs(singles: list[Mutant]) -> list[Mutant]:
    """Adjacent pairs, best rank first: every two non-overlapping ``singles`` of one file whose
    lines are the same or adjacent (``|a.line - b.line| <= 1``)."""
    by_line: dict[tuple[str, int], list[Mutant]] = {}
    for m in singles:
        by_line.setdefault((m.file, m.line), []).append(m)
    out = []
    for (file, line), here in by_line.items():
        below = by_line.get((file, line + 1), [])
        for a, b in itertools.chain(itertools.combinations(here, 2), itertools.product(here, below)):
            if not overlaps(a.edits, b.edits):
                out.append(_pair(a, b))
    out.sort(key=lambda m: m.rank)
    return out


def is_guard_deletion(m: Mutant) -> bool:
    """Whether ``m`` deletes a guard: an ``if`` whose body is one jump (``continue``, ``break``,
    ``return``, ``raise``), the only ``if`` that ``delete_statement`` removes."""
    return m.operator == "delete_statement" and m.description.startswith(_GUARD)


def function_pairs(singles: list[Mutant], function_of: Callable[[str, int], tuple[int, int] | None]) -> list[Mutant]:
    """Function pairs, most likely first: each anchor (every guard deletion of ``singles`` and
    their :data:`ANCHORS` first, in the order given) with each single of another statement of
    the same function whose line is more than one away (nearer ones are :func:`pairs`'),
    edits not overlapping. ``function_of(file, line)``: the (first, last) lines of the
    innermost function holding ``line``, None outside any.

    Order: the product of the two singles' ``score × prior``, largest first (the chance that
    both statements are faulty and both edits right, taken as independent), then the smaller
    edit; unlike an adjacent pair, whose two edits are one statement's, the two statements
    here are suspicious apart, and the lower score alone would rank every edit of the
    function's top statement with every edit of the next level alike."""
    anchors = [m for i, m in enumerate(singles) if i < ANCHORS or is_guard_deletion(m)]
    by_function: dict[tuple[str, tuple[int, int]], list[Mutant]] = {}
    for m in singles:
        span = function_of(m.file, m.line)
        if span is not None:
            by_function.setdefault((m.file, span), []).append(m)
    seen: set[tuple[int, int]] = set()
    out: list[tuple[float, int, Mutant]] = []
    for a in anchors:
        span = function_of(a.file, a.line)
        for b in by_function.get((a.file, span), []) if span else ():
            key = (min(id(a), id(b)), max(id(a), id(b)))
            if b.statement == a.statement or abs(a.line - b.line) <= 1 or key in seen or overlaps(a.edits, b.edits):
                continue
            seen.add(key)
            pair = _pair(a, b)
            out.append((-a.score * a.prior * b.score * b.prior, pair.size, pair))
    out.sort(key=lambda t: t[:2])
    return [pair for *_, pair in out]


def second_order(singles: list[Mutant], function_of: Callable[[str, int], tuple[int, int] | None],
                 keep: Callable[[Iterable[Mutant], int], list[Mutant]], budget: int) -> list[Mutant]:
    """At most ``budget`` pairs of ``singles``: :data:`FUNCTION_SHARE` of it for function pairs,
    the rest for adjacent pairs, either family's unused share going to the other; adjacent
    ones first, then function ones, each family in its order. ``keep(candidates, n)``: the
    first ``n`` of them that are valid (:func:`codur.mutation.mutants.valid`).

    Why a share each: the families are different hypotheses and neither's ranks say how likely
    it is against the other's, while either alone fills any budget (a 40-line function has
    thousands of each). Why a quarter: measured, as the smallest share that keeps every pair
    fix the benches know; bench/repair's pair fixes are adjacent ones, the latest the 69th
    adjacent pair of its program (t02_theatre_seats), and bench/real's two-edit fix in one
    function (slugify-word-boundary-delimiters) is its 23rd function pair; of the default
    100, 75 and 25."""
    if budget <= 0:
        return []
    within = keep(function_pairs(singles, function_of), budget)
    near = keep(pairs(singles), budget - min(len(within), int(budget * FUNCTION_SHARE)))
    return near + within[:budget - len(near)]
