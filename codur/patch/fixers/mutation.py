"""The mutation fixer: the mutation engine's mutants of the most suspicious lines, best first
(:func:`codur.mutation.mutants.generate`; no model, ~0.3 s a candidate). The pipeline searches
them for at most ``time_box_s`` seconds when a model fixer follows; the rest run beside the
model and at the end."""

from __future__ import annotations

import dataclasses
import time

from codur.core.events.patch import PatchMutants
from codur.mutation import mutants
from codur.mutation.mutants import Mutant
from codur.patch.chain import parts_of
from codur.patch.fixer import FixerView

#: Failing tests from which every single-edit mutant is probed (:attr:`codur.mutation.mutants.Mutant.probe`):
#: with one failing test a mutant fixes all or none, with two or more it may fix a part
#: (a near miss, with the set it fixed, that :mod:`codur.patch.chain` joins with another).
PROBE_FROM = 2


class MutationFixer:
    """Mutants of the localized lines (loops a test hung in first, then the parameter checks
    a failing test expected to raise), at most
    ``settings.max_mutants``, ``settings.max_pairs`` second-order ones among them."""

    name = "mutation"
    calls_model = False

    def candidates(self, view: FixerView) -> list[Mutant]:
        """The mutants, best first; emits ``patch.mutants`` (count, seconds)."""
        loc = view.localization
        start = time.monotonic()
        found, _ = mutants.generate(view.repo, loc.scores, limit=view.settings.max_mutants,
                                    max_pairs=view.settings.max_pairs, hung_loops=loc.hung_loops,
                                    raises=loc.expected_raises)
        view.emit(PatchMutants(count=len(found), seconds=round(time.monotonic() - start, 3)))
        return _probed(found, loc.failing)

    def more(self, view: FixerView, tier: int) -> list[Mutant]:
        """Tier ``tier`` (2, 3, ...) of the search, asked for once every candidate was tried
        with time left: the mutants :func:`codur.mutation.mutants.generate` gives with ``tier``
        times the ``max_mutants`` and ``max_pairs`` budgets, but for those the search judged
        already, best first ([]: the budgets cut nothing, there are no more)."""
        loc, settings = view.localization, view.settings
        judged = {m.key for j in view.verdicts() for m in parts_of(j.candidate)}
        found, _ = mutants.generate(view.repo, loc.scores, limit=settings.max_mutants * tier,
                                    max_pairs=settings.max_pairs * tier, hung_loops=loc.hung_loops,
                                    raises=loc.expected_raises)
        return _probed([m for m in found if m.key not in judged], loc.failing)


def _probed(found: list[Mutant], failing: list[str]) -> list[Mutant]:
    """``found`` with every single edit probed when two or more tests fail (:data:`PROBE_FROM`)."""
    if len(failing) < PROBE_FROM:
        return found
    return [dataclasses.replace(m, probed=True) if m.order == 1 else m for m in found]
