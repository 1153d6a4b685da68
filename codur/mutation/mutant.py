"""One mutant: a candidate patch of one file made of single edits (:class:`Mutant`), and the
operators whose mutants are always probed (:data:`PROBED`). Generation: :mod:`codur.mutation.mutants`;
second-order mutants: :mod:`codur.mutation.pairs` (both import this module)."""

from __future__ import annotations

from dataclasses import dataclass

from codur.validate.source import Edit, apply_edits


@dataclass(frozen=True)
class Mutant:
    """A candidate patch of one file: ``edits`` (char offsets) on its original text.

    ``score`` is the suspiciousness of the mutated statement, ``prior`` the operator's
    prior (0..1); ``statement`` is (file, first line) of that statement; ``order`` is 1
    for a single edit, 2 for a pair; ``probed``: see :attr:`probe`.
    """

    file: str
    line: int
    operator: str
    edits: tuple[Edit, ...]
    description: str
    score: float
    prior: float
    statement: tuple[str, int]
    order: int = 1
    probed: bool = False
    feedback = False  # a probe's failures go to no model: the plain sweep (Checks.sweep)

    @property
    def probe(self) -> bool:
        """Whether the evaluator runs this mutant's failing tests one by one (near-miss
        detection) instead of the fast checks only: for the statements added or moved
        (:data:`PROBED`), often half a fix the model's feedback samples continue from, and
        for every mutant made ``probed`` (the single edits of a run with two or more failing
        tests, :class:`codur.patch.fixers.mutation.MutationFixer`: half of a two-fault fix
        that :mod:`codur.patch.chain` joins with the other half)."""
        return self.probed or self.operator in PROBED

    @property
    def size(self) -> int:
        """Characters removed plus characters inserted."""
        return sum(e.end - e.start + len(e.new) for e in self.edits)

    @property
    def rank(self) -> tuple[float, int]:
        """Sort key, best first: ``-(score × prior)``, then the edit's size."""
        return (-self.score * self.prior, self.size)

    @property
    def key(self) -> tuple[str, tuple[Edit, ...]]:
        """What makes two mutants the same patch: (file, edits)."""
        return (self.file, self.edits)

    @property
    def label(self) -> str:
        return f"{self.file}:{self.line} {self.description}"

    @property
    def provenance(self) -> dict:
        return {"source": "mutation", "operator": self.operator, "line": self.line, "description": self.description}

    def apply(self, text: str) -> str:
        return apply_edits(text, self.edits)


#: Operators that add or move a statement: their mutants are probed (see :attr:`Mutant.probe`).
PROBED = frozenset({"return_at_end", "advance_loop_variable", "flush_after_loop", "mirror_link",
                    "dedent_last_statement"})
