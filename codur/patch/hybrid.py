"""Model + mutation: mutants of a model's near miss, around the lines the model changed.

A near miss (a sample that makes some failing tests pass and breaks no passing test)
is often one small edit away from a plausible patch: the model found the right place
and most of the fix. Its changed lines are mutated first (suspiciousness 1.0), then the
rest of the rewritten function (0.3), with the mutation engine's operators.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from codur.patch.sampling import Sample
from codur.patch.splice import functions
from codur.repair.mutants import Mutant, candidates, valid
from codur.repair.source import Source

CHANGED = 1.0
NEARBY = 0.3


@dataclass(frozen=True)
class HybridMutant:
    """A mutant of a near miss's text: the file's new text is ``mutant`` applied to ``base``."""

    base: Sample
    mutant: Mutant
    probe = False  # judged like a mutant: the fast acceptance checks

    @property
    def file(self) -> str:
        return self.base.file

    def apply(self, text: str) -> str:
        return self.mutant.apply(self.base.new_text)

    @property
    def label(self) -> str:
        return f"model sample {self.base.k} + {self.mutant.label}"

    @property
    def provenance(self) -> dict:
        return {"source": "hybrid", "sample": self.base.k, "operator": self.mutant.operator,
                "line": self.mutant.line, "description": self.mutant.description}


def changed_lines(old: str, new: str) -> set[int]:
    """1-based lines of ``new`` that differ from ``old`` (an insertion point counts the
    line after it)."""
    a, b = old.splitlines(), new.splitlines()
    out: set[int] = set()
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            out.update(range(j1 + 1, max(j2, j1 + 1) + 1))
    return out


def hybrid_mutants(sample: Sample, original: str, limit: int = 80) -> list[HybridMutant]:
    """Mutants of ``sample`` (a near miss of the file whose original text is ``original``),
    best first, at most ``limit``. [] when the sample does not parse."""
    try:
        src = Source(sample.new_text)
        spans = functions(sample.new_text, sample.file)
    except (SyntaxError, ValueError):
        return []
    changed = changed_lines(original, sample.new_text)
    scores: dict[tuple[str, int], float] = {}
    for span in spans:
        if span.qualname in sample.functions or span.qualname.split(".<locals>.")[0] in sample.functions:
            for line in range(span.def_line, span.end + 1):
                scores[(sample.file, line)] = NEARBY
    for line in changed:
        scores[(sample.file, line)] = CHANGED
    mutants = sorted(candidates(sample.file, src, scores), key=lambda m: m.rank)
    return [HybridMutant(sample, m) for m in valid(mutants, {sample.file: sample.new_text}, limit)]
