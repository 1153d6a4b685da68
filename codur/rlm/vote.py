"""Self-consistency over RLM trajectories: several runs at different temperatures within one
budget and a majority vote on their normalized answers (Wang et al. 2023, "Self-Consistency
Improves Chain of Thought Reasoning in Language Models"): how answers compare, what budget
is left for the next trajectory, the tally. The runs themselves are
:meth:`codur.rlm.engine.RLMEngine.run_voted`."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

from codur.core.usage import Usage
from codur.rlm.budget import BudgetLimits
from codur.rlm.parser import is_no_answer
from codur.rlm.trace import RLMTrace


def vote_key(answer: str | None) -> str | None:
    """The form answers are compared in for a vote: lowercased, spaces collapsed, quotes and end
    punctuation dropped, thousands commas removed; a short answer holding one number is that number
    (``"The port is 43,071."`` and ``43071`` vote together), a whole number written as a float its
    integer (``45497.0`` and ``45497``: a sum in floats and one in ints). None and empty answers: None."""
    if answer is None or is_no_answer(answer):
        return None
    text = re.sub(r"(?<=\d),(?=\d{3})", "", " ".join(answer.lower().split())).strip(" .!'\"`")
    numbers = re.findall(r"-?\d+(?:\.\d+)?", text)
    if len(numbers) == 1 and len(text) <= 60:
        return re.sub(r"\.0+$", "", numbers[0])
    return text


def remaining(limits: BudgetLimits, used: Usage, elapsed_s: float) -> BudgetLimits | None:
    """``limits`` less what earlier trajectories ``used`` (USD, tokens) and ``elapsed_s`` seconds; None when spent."""
    def rest(limit: float | None, spent: float) -> float | None:
        return None if limit is None else limit - spent

    left = replace(limits, max_cost_usd=rest(limits.max_cost_usd, used.cost_usd),
                   max_tokens=rest(limits.max_tokens, used.total_tokens), max_wall_s=rest(limits.max_wall_s, elapsed_s))
    spent = any(v is not None and v <= 0 for v in (left.max_cost_usd, left.max_tokens, left.max_wall_s))
    return None if spent else left


def tally(runs: list[tuple[RLMTrace, Path | None]]) -> Counter:
    """Votes per :func:`vote_key` of the runs' answers (None does not vote)."""
    return Counter(key for trace, _ in runs if (key := vote_key(trace.answer)) is not None)


