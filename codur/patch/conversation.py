"""Conversational sampling (ChatRepair's failure-feedback loop, Xia & Zhang 2023): what the
tests said about a sample (:class:`Judged`), what the sampler reads of the search while it
draws (:class:`Verdicts`), the judged sample a feedback sample answers, and
the earlier turns it continues. :class:`codur.patch.sampling.Sampler` decides when a feedback
sample is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from codur.patch.prompt import feedback
from codur.patch.sample import Sample
from codur.patch.splice import code_blocks, functions, source_of
from codur.validate.evaluate import CandidateVerdict

#: Earlier answers a feedback sample continues, at most.
FEEDBACK_TURNS = 3


@dataclass(frozen=True)
class Judged:
    """What the tests said about a sample that was not plausible: its evaluation's
    ``status`` (failed, near_miss or timeout), ``fixed`` of the ``failing`` failing
    tests pass with it, ``failures`` and ``broke`` as in
    :class:`codur.validate.evaluate.Evaluation`."""

    sample: Sample
    status: CandidateVerdict
    fixed: int
    failing: int
    failures: tuple[tuple[str, str], ...] = ()
    broke: tuple[tuple[str, str], ...] = ()

    def said(self) -> str:
        return feedback(self.status, self.fixed, self.failing, self.failures, self.broke)


def answer(sample: Sample, reply: str, edit: bool = False) -> str:
    """The code of ``sample`` as the model's answer in a conversation: the functions it
    rewrote, as the tests ran them (the reply's blocks when they cannot be found); with
    ``edit`` (a window's lines were asked for), the reply's first block, as written."""
    if edit and reply.strip():
        return f"```python\n{code_blocks(reply)[0].strip()}\n```"
    try:
        spans = [f for f in functions(sample.new_text, sample.file) if f.qualname in sample.functions]
    except SyntaxError:
        spans = []
    code = "\n\n".join(source_of(sample.new_text, f) for f in spans) or "\n\n".join(code_blocks(reply))
    return f"```python\n{code.strip()}\n```"


def target(judged: list[Judged], answers: dict[int, str], used: set[int]) -> Judged | None:
    """The judged sample the next feedback sample answers: the near miss that fixed most
    tests, else the latest rejected sample, among those not answered yet."""
    fresh = [j for j in judged if j.sample.k in answers and j.sample.k not in used]
    if not fresh:
        return None
    return max(fresh, key=lambda j: (j.status == CandidateVerdict.NEAR_MISS, j.fixed, j.sample.k))


def turns(target: Judged, judged: list[Judged], answers: dict[int, str]) -> list[tuple[str, str]]:
    """(answer, what the tests said) of up to :data:`FEEDBACK_TURNS` judged samples,
    oldest first, ``target`` last."""
    earlier = sorted((j for j in judged if j.sample.k in answers and j is not target), key=lambda j: j.sample.k)
    chosen = [*earlier[-(FEEDBACK_TURNS - 1):], target] if FEEDBACK_TURNS > 1 else [target]
    return [(answers[j.sample.k], j.said()) for j in chosen]


class Verdicts(Protocol):
    """What the sampler reads of the search while it draws (the sampling fixer's view of it)."""

    def stopped(self) -> bool:
        """True: draw no more (the search ended, or a limit is reached); asked before each call
        and while a reply streams."""
        ...

    def judged(self) -> list[Judged]:
        """What the tests said so far about this sampler's candidates (and the near-miss
        mutants a feedback sample may continue from), in the order judged."""
        ...

    def near_miss(self) -> bool:
        """Some candidate of the search was a near miss (a pair sample is due)."""
        ...


class Unjudged:
    """:class:`Verdicts` of a sampler drawing alone: never stopped, nothing judged."""

    def stopped(self) -> bool:
        return False

    def judged(self) -> list[Judged]:
        return []

    near_miss = stopped
