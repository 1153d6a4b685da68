"""The fixers of the candidate-patch pipeline, one module each, and their list in cost order.

A fixer is a small class (:class:`codur.patch.fixer.Fixer`: ``name``, ``calls_model``,
``candidates(view)``); the pipeline runs those of :data:`FIXERS` that the settings enable,
in this order. A new fixer is its module here and its line below (and, for the setting
``fixers`` to accept its name, its record in :data:`codur.core.contracts.FIXERS`).
"""

from __future__ import annotations

from codur.patch.fixer import Fixer
from codur.patch.fixers.cloze import ClozeFixer
from codur.patch.fixers.hybrid import HybridFixer
from codur.patch.fixers.mutation import MutationFixer
from codur.patch.fixers.sampling import SamplingFixer

#: Every fixer of the pipeline, in the order they run (cost order).
FIXERS: tuple[Fixer, ...] = (
    MutationFixer(),
    ClozeFixer(),
    SamplingFixer(),
    HybridFixer(),
)

__all__ = ["FIXERS", "ClozeFixer", "HybridFixer", "MutationFixer", "SamplingFixer"]
