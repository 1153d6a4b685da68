"""Model + mutation: mutants of a model's near miss, and the union of two near misses.

A near miss (a sample that makes some failing tests pass and breaks no passing test)
is often one small edit away from a plausible patch: the model found the right place
and most of the fix. Its changed lines are mutated first (suspiciousness 1.0), then the
rest of the rewritten function (0.3), with the mutation engine's operators, in every
file the sample changed.

Two near misses that changed different places (other files, or other functions of a
file) may each hold half of a fix in two places: their :class:`Union`, both changes
applied, is tried before any mutant.

:class:`codur.patch.fixers.hybrid.HybridFixer` is the hybrid fixer of the candidate-patch pipeline.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from codur.core.pyast import BOM
from codur.mutation.mutants import Mutant, candidates, valid
from codur.patch.sample import Sample, changed_functions
from codur.patch.splice import functions
from codur.validate.source import Source

CHANGED = 1.0
NEARBY = 0.3


@dataclass(frozen=True)
class HybridMutant:
    """A mutant of a near miss: ``mutant`` applied to ``base``'s new text of the mutant's
    file; the base's other files as the base changed them."""

    base: Sample
    mutant: Mutant
    probe = False  # judged like a mutant: the fast acceptance checks

    @property
    def file(self) -> str:
        return self.mutant.file

    @property
    def files(self) -> tuple[str, ...]:
        return (self.file, *(f for f in self.base.files if f != self.file))

    def apply(self, text: str) -> str:
        return self.mutant.apply(self.base.new_texts[self.file])

    def apply_files(self, originals: dict[str, str]) -> dict[str, str]:
        return {**self.base.new_texts, self.file: self.apply(originals[self.file])}

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


def hybrid_mutants(sample: Sample, originals: dict[str, str], limit: int = 80) -> list[HybridMutant]:
    """Mutants of ``sample`` (a near miss; ``originals``: file -> original text of its
    files), best first, at most ``limit``. A file of the sample that does not parse
    gives none."""
    found: list[Mutant] = []
    for file, new in sample.new_texts.items():
        try:
            src = Source(new)
            spans = functions(new, file)
        except (SyntaxError, ValueError):
            continue
        scores: dict[tuple[str, int], float] = {}
        for span in spans:
            if span.qualname in sample.functions or span.qualname.split(".<locals>.")[0] in sample.functions:
                for line in range(span.def_line, span.end + 1):
                    scores[(file, line)] = NEARBY
        for line in changed_lines(originals[file], new):
            scores[(file, line)] = CHANGED
        found += candidates(file, src, scores)
    mutants = sorted(found, key=lambda m: m.rank)
    return [HybridMutant(sample, m) for m in valid(mutants, sample.new_texts, limit)]


@dataclass(frozen=True)
class Union:
    """Two near misses applied together: ``news`` holds (file, new text) of every file
    either changed (a file both changed: both changes merged)."""

    first: Sample
    second: Sample
    news: tuple[tuple[str, str], ...]
    probe = True  # may itself be a near miss (fixing more tests than either)

    @property
    def file(self) -> str:
        return self.news[0][0]

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(f for f, _ in self.news)

    @property
    def k(self) -> int:
        return min(self.first.k, self.second.k)

    def apply(self, text: str) -> str:
        return self.news[0][1]

    def apply_files(self, originals: dict[str, str]) -> dict[str, str]:
        return dict(self.news)

    @property
    def label(self) -> str:
        return f"model samples {self.first.k} + {self.second.k} together ({', '.join(self.files)})"

    @property
    def provenance(self) -> dict:
        return {"source": "hybrid", "union": [self.first.k, self.second.k], "files": list(self.files),
                "functions": sorted({*self.first.functions, *self.second.functions})}


def merge(original: str, a: str, b: str) -> str | None:
    """``original`` with the line changes of ``a`` and of ``b`` both applied (a three-way
    merge); None when they touch the same lines (or insert at the same place)."""
    base = original.splitlines(keepends=True)
    hunks = []
    for new in (a, b):
        lines = new.splitlines(keepends=True)
        ops = difflib.SequenceMatcher(None, base, lines, autojunk=False).get_opcodes()
        hunks += [(i1, i2, lines[j1:j2]) for tag, i1, i2, j1, j2 in ops if tag != "equal"]
    hunks.sort(key=lambda h: (h[0], h[1]))
    out, at, last = [], 0, -1
    for i1, i2, lines in hunks:
        if i1 < at or i1 == last:
            return None
        out += base[at:i1] + lines
        at, last = i2, i1
    return "".join(out + base[at:])


def union(first: Sample, second: Sample, originals: dict[str, str]) -> Union | None:
    """The :class:`Union` of two near misses that changed different places, or None: a
    file both changed must differ in different functions (and lines), and the result
    must compile and differ from either sample."""
    a, b = first.new_texts, second.new_texts
    news: dict[str, str] = {}
    for file in dict.fromkeys([*a, *b]):
        if file in a and file in b:
            if set(changed_functions(originals[file], a[file], file)) & \
                    set(changed_functions(originals[file], b[file], file)):
                return None
            merged = merge(originals[file], a[file], b[file])
            if merged is None:
                return None
            try:
                compile(merged.removeprefix(BOM), file, "exec", dont_inherit=True)
            except (SyntaxError, ValueError):
                return None
            news[file] = merged
        else:
            news[file] = a[file] if file in a else b[file]
    if news in (a, b):
        return None
    return Union(first, second, tuple(news.items()))


def hybrid_candidates(near: list[tuple[Sample, int]], original, *, unions: int = 2,
                      bases: int = 2) -> list[tuple[tuple[int, int], Sample | Union | HybridMutant]]:
    """The hybrid phase's candidates as (key, candidate), best key first: the unions of
    two near misses (at most ``unions``, best pair first, key ``(-1, n)``), then the
    mutants of the ``bases`` best near misses (key ``(mutant index, rank)``).
    ``near``: (near miss, failing tests it fixed), a candidate that is no :class:`Sample`
    ignored; ``original(rel)``: a file's original text."""
    samples = [(s, fixed) for s, fixed in near if isinstance(s, Sample)]
    ranked = [s for s, _ in sorted(samples, key=lambda sf: (-sf[1], sf[0].k))]
    out: list = []
    for i, a in enumerate(ranked):
        for b in ranked[i + 1:]:
            both = union(a, b, {f: original(f) for f in {*a.files, *b.files}}) if len(out) < unions else None
            if both is not None and all(both.news != u.news for _, u in out):
                out.append(((-1, len(out)), both))
    for rank, sample in enumerate(ranked[:bases]):
        originals = {f: original(f) for f in sample.files}
        out += [((i, rank), m) for i, m in enumerate(hybrid_mutants(sample, originals))]
    return out
