"""Partial fixes chained: two near-miss mutants joined into one candidate, and the tests a
partial fix left failing localized again to find the other half.

A bug may need two edits far apart, each of which fixes its own failing tests and breaks
none (two faults, or one fault with two hunks). A probed mutant that does that is a near
miss (:mod:`codur.validate.evaluate`) with the *set* of failing tests it fixed. Two near
misses at different statements (any distance, one file or two) whose sets each hold a test
the other's does not are tried together as a :class:`MutantUnion` ("mutants A + B
together"): a multi-hunk patch made of partial ones (Hercules, Saha et al., ICSE 2019,
repairs several hunks with related single edits; ITER, Ye & Monperrus, ICSE 2024, repairs
iteratively from partial patches). A union that fixes every failing test is then judged by
the full checks like any candidate; one that fixes more than either part is a near miss too
and may be joined again.

The other half may rank far down the first localization, which every failing test steers.
After a near miss, the failing tests it left are localized again from the baseline's
spectrum (:func:`codur.validate.localize.refocus`, no new run) and the best
:data:`REFOCUSED` mutants of those lines are probed, alternating with the rest of the queue,
once per set of tests left (at most :data:`MAX_REFOCUS` sets). :class:`Chain` holds one
search's near misses and builds both, at most :data:`MAX_UNIONS` unions a search.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codur.mutation import mutants as mutation
from codur.mutation.mutants import Mutant
from codur.patch.producer import read_originals
from codur.validate.localize import Localization, refocus
from codur.validate.search import CandidateQueue
from codur.validate.session import RepairSession
from codur.validate.source import apply_edits, overlaps

#: Unions tried at most in one search.
MAX_UNIONS = 12
#: Mutants generated for the failing tests one partial fix left (their lines, localized again).
REFOCUSED = 200
#: Distinct sets of left failing tests localized again in one search.
MAX_REFOCUS = 3


@dataclass(frozen=True)
class MutantUnion:
    """Mutants at different statements applied together: ``parts``, sorted by file and offset
    (their edits never overlap). Probed: it may itself fix more than either part."""

    parts: tuple[Mutant, ...]
    probe = True
    feedback = False  # judged like its mutants: the plain sweep (codur.validate.evaluate.Checks.sweep)

    @property
    def file(self) -> str:
        return self.parts[0].file

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.file for m in self.parts))

    def _edits(self, file: str) -> tuple:
        return tuple(e for m in self.parts if m.file == file for e in m.edits)

    def apply(self, text: str) -> str:
        """The new text of :attr:`file` from its original ``text``."""
        return apply_edits(text, self._edits(self.file))

    def apply_files(self, originals: dict[str, str]) -> dict[str, str]:
        """The new text of every file (``originals``: path -> original text)."""
        return {f: apply_edits(originals[f], self._edits(f)) for f in self.files}

    @property
    def label(self) -> str:
        return f"mutants {' + '.join(m.label for m in self.parts)} together"

    @property
    def provenance(self) -> dict:
        return {"source": "mutation", "operator": "+".join(m.operator for m in self.parts),
                "line": self.parts[0].line, "description": self.label,
                "union": [m.provenance | {"file": m.file} for m in self.parts]}


def parts_of(candidate: Any) -> tuple[Mutant, ...]:
    """The mutants ``candidate`` is made of: a :class:`Mutant` itself, a union's parts, else ()."""
    if isinstance(candidate, Mutant):
        return (candidate,)
    return candidate.parts if isinstance(candidate, MutantUnion) else ()


def join(a: Any, b: Any) -> MutantUnion | None:
    """The union of the mutants of ``a`` and ``b`` (:func:`parts_of`), or None: either is no
    mutant, they share a statement, or their edits of one file overlap."""
    pa, pb = parts_of(a), parts_of(b)
    if not pa or not pb or {m.statement for m in pa} & {m.statement for m in pb}:
        return None
    for file in {m.file for m in pa} & {m.file for m in pb}:
        if overlaps(tuple(e for m in pa if m.file == file for e in m.edits),
                    tuple(e for m in pb if m.file == file for e in m.edits)):
            return None
    return MutantUnion(tuple(sorted(pa + pb, key=lambda m: (m.file, m.edits[0].start))))


def follow_key(key: Any, i: int) -> Any:
    """The queue key of the ``i``-th (0-based) candidate that follows the one judged under
    ``key``: between the ``i``-th and the ``i+1``-th key after it (a search's keys are ranks,
    ints, or tuples ending in one), so follow-ups and the rest of the queue alternate."""
    if isinstance(key, tuple) and key:
        return (*key[:-1], follow_key(key[-1], i))
    return key + i + 0.5 if isinstance(key, int | float) else key


def _identity(candidate: Any) -> frozenset:
    return frozenset(m.key for m in parts_of(candidate))


class Chain:
    """One search's near-miss mutants with the failing tests each fixed, and what to try next
    from them (:meth:`queue_after`).

    Args:
        repo: the repository the mutants are generated from (read only).
        loc: the baseline's localization (its failing tests and spectrum).
        unions: unions built at most; ``refocused``: mutants per set of tests left failing.
        judged: the candidates judged so far (a refocused mutant already judged or queued is
            not queued again).
    """

    def __init__(self, repo: Path, loc: Localization, *, unions: int = MAX_UNIONS, refocused: int = REFOCUSED,
                 judged: Callable[[], list] = list):
        self.repo, self.loc, self.refocused, self.judged = repo, loc, refocused, judged
        self.failing = frozenset(loc.failing)
        self.unions_left = unions
        self.near: list[tuple[Any, frozenset[str]]] = []
        self.made: set[frozenset] = set()
        self.focused: set[frozenset[str]] = set()

    def unions(self, candidate: Any, fixed: frozenset[str]) -> list[MutantUnion]:
        """Record the near miss ``candidate`` (fixing ``fixed``); its unions with the earlier
        ones whose fixed sets each hold a test the other's does not, the pair fixing the most
        tests together first, while the budget of unions lasts."""
        found = []
        for other, theirs in self.near:
            if fixed <= theirs or theirs <= fixed:
                continue
            both = join(candidate, other)
            if both is not None and _identity(both) not in self.made:
                found.append((-len(fixed | theirs), len(found), both))
        self.near.append((candidate, fixed))
        out = [u for *_, u in sorted(found, key=lambda f: f[:2])][:max(self.unions_left, 0)]
        self.unions_left -= len(out)
        self.made.update(_identity(u) for u in out)
        return out

    def queue_after(self, candidate: Any, fixed: frozenset[str], queue: CandidateQueue, key: Any,
                    session: RepairSession) -> None:
        """Push into ``queue`` the unions of the near miss ``candidate`` under its own ``key``
        (next, before the candidates ranked below it), then the mutants its left failing tests
        point at interleaved with the rest of the queue (:func:`follow_key`); their files'
        originals read into ``session``."""
        if not parts_of(candidate) or not fixed:
            return
        unions = self.unions(candidate, fixed)
        known = {_identity(c) for c in [*self.judged(), *queue.candidates()]}
        refocused = [m for m in self.refocus(fixed, {m.statement for m in parts_of(candidate)})
                     if _identity(m) not in known]
        read_originals(session, [*unions, *refocused])
        for item in unions:
            queue.push(key, item)
        for i, item in enumerate(refocused):
            queue.push(follow_key(key, i), item)

    def refocus(self, fixed: frozenset[str], statements: set[tuple[str, int]]) -> list[Mutant]:
        """Probed mutants of the lines the failing tests ``fixed`` leaves point at
        (:func:`codur.validate.localize.refocus`), best first, at most ``refocused``, but for
        those of the near miss's own ``statements`` ((file, line); no union could hold both);
        none when that set of tests was localized again already, or :data:`MAX_REFOCUS` sets were."""
        left = self.failing - fixed
        if not left or left in self.focused or len(self.focused) >= MAX_REFOCUS:
            return []
        self.focused.add(left)
        scores = refocus(self.loc, left)
        if not scores:
            return []
        found, _ = mutation.generate(self.repo, scores, limit=self.refocused, max_pairs=0)
        return [dataclasses.replace(m, probed=True) for m in found if m.statement not in statements]
