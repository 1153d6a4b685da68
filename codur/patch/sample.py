"""A model-written candidate patch (:class:`Sample`) and the functions two texts differ in.

The record the sampler (:mod:`codur.patch.sampling`) yields, the conversation
(:mod:`codur.patch.conversation`) answers and the hybrid fixer (:mod:`codur.patch.hybrid`)
mutates; it imports none of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from codur.patch.splice import functions, normalized, source_of


@dataclass(frozen=True)
class Sample:
    """A model-written candidate patch of ``file`` (its whole new text) and, for a pair
    sample across files, of the files in ``extra`` ((file, new text) pairs).

    ``k``: the sample's index; ``temperature``, ``variant``: how it was drawn;
    ``functions``: the qualified names it rewrote.
    """

    file: str
    new_text: str
    k: int
    temperature: float
    variant: str
    functions: tuple[str, ...]
    extra: tuple[tuple[str, str], ...] = ()
    probe = True  # a model sample may be a near miss: judged test by test

    @property
    def files(self) -> tuple[str, ...]:
        return (self.file, *(f for f, _ in self.extra))

    @property
    def new_texts(self) -> dict[str, str]:
        """file -> new text of every file the sample changes."""
        return {self.file: self.new_text, **dict(self.extra)}

    def apply(self, text: str) -> str:
        return self.new_text

    def apply_files(self, originals: dict[str, str]) -> dict[str, str]:
        return self.new_texts

    @property
    def label(self) -> str:
        return f"{', '.join(self.files)}: {', '.join(self.functions)} rewritten by model sample {self.k}"

    @property
    def provenance(self) -> dict:
        return {"source": "sampling", "sample": self.k, "temperature": self.temperature, "variant": self.variant,
                "functions": list(self.functions), **({"files": list(self.files)} if self.extra else {})}


def changed_functions(old: str, new: str, file: str) -> tuple[str, ...]:
    """Qualified names of the functions whose code differs (by AST) between two texts."""
    try:
        before = {s.qualname: normalized(source_of(old, s)) for s in functions(old, file)}
        after = {s.qualname: normalized(source_of(new, s)) for s in functions(new, file)}
    except SyntaxError:
        return ()
    return tuple(q for q in after if before.get(q) != after[q] and ".<locals>." not in q)
