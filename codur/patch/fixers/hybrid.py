"""The hybrid fixer: the unions of two near misses, then mutants of the best near misses
(:func:`codur.patch.hybrid.hybrid_candidates`), once the earlier fixers found some."""

from __future__ import annotations

from codur.patch.fixer import FixerView
from codur.patch.hybrid import hybrid_candidates


class HybridFixer:
    """Candidates built from the near misses so far (the model's samples among them)."""

    name = "hybrid"
    calls_model = False  # it builds on the model's samples but calls no model itself

    def candidates(self, view: FixerView) -> list:
        """The hybrid candidates, best first; none without a near miss."""
        near = view.near_misses()
        if not near:
            return []
        return [c for _, c in sorted(hybrid_candidates(near, view.original), key=lambda kc: kc[0])]
