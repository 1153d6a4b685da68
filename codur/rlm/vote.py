"""Self-consistency over RLM trajectories: several runs at different temperatures within one
budget and a majority vote on their normalized answers (Wang et al. 2023, "Self-Consistency
Improves Chain of Thought Reasoning in Language Models")."""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codur.core.usage import Usage
from codur.rlm.budget import Budget, BudgetLimits
from codur.rlm.parser import is_no_answer
from codur.rlm.trace import RLMTrace

if TYPE_CHECKING:
    from codur.rlm.engine import RLMEngine, RLMResult


def vote_key(answer: str | None) -> str | None:
    """The form answers are compared in for a vote: lowercased, spaces collapsed, quotes and end
    punctuation dropped, thousands commas removed; a short answer holding one number is that number
    (``"The port is 43,071."`` and ``43071`` vote together). None and empty answers: None."""
    if answer is None or is_no_answer(answer):
        return None
    text = re.sub(r"(?<=\d),(?=\d{3})", "", " ".join(answer.lower().split())).strip(" .!'\"`")
    numbers = re.findall(r"-?\d+(?:\.\d+)?", text)
    return numbers[0] if len(numbers) == 1 and len(text) <= 60 else text


def voted(engine: RLMEngine, question: str, context: Any, *, k: int = 3,
          temperatures: tuple[float, ...] = (0.0, 0.7, 1.0)) -> RLMResult:
    """:meth:`codur.rlm.engine.RLMEngine.run_voted` (its docstring says what it does)."""
    from codur.rlm.engine import RLMResult

    if k < 1 or not temperatures:
        raise ValueError("run_voted needs k >= 1 and at least one temperature")
    limits, t0, used, base = engine.config.budget_limits(), time.monotonic(), Usage(), engine.client
    runs: list[tuple[RLMTrace, Path | None]] = []
    try:
        for i in range(k):
            left = _left(limits, used, time.monotonic() - t0)
            if left is None:
                break
            temperature = temperatures[i % len(temperatures)]
            engine.client = replace(base, options={**base.options, "temperature": temperature})
            trace = engine.execute(question, context, Budget(left))
            used = used + trace.usage
            runs.append((trace, trace.save(engine.run_dir) if engine.run_dir is not None else None))
            tally = _tally(runs)
            if tally and tally.most_common(1)[0][1] * 2 > k:  # a majority of k: the rest cannot change it
                break
    finally:
        engine.client = base
    engine.measured = engine.measured + used
    counts = _tally(runs)
    keys = [vote_key(t.answer) for t, _ in runs]
    winner = max(counts, key=lambda key: (counts[key], -keys.index(key)), default=None)
    trace, path = runs[keys.index(winner)] if winner is not None else runs[-1]
    if len(runs) > 1:
        trace.warn(f"self-consistency vote over {len(runs)} trajectories: {counts.get(winner, 0)} for this answer")
        path = trace.save(engine.run_dir) if engine.run_dir is not None else None  # again, with the vote
    return RLMResult(trace.answer, trace.answer_source or "error", trace, path, tuple(t.answer for t, _ in runs))


def _left(limits: BudgetLimits, used: Usage, elapsed_s: float) -> BudgetLimits | None:
    """``limits`` less what earlier trajectories ``used`` (USD, tokens) and ``elapsed_s`` seconds; None when spent."""
    def rest(limit: float | None, spent: float) -> float | None:
        return None if limit is None else limit - spent

    left = replace(limits, max_cost_usd=rest(limits.max_cost_usd, used.cost_usd),
                   max_tokens=rest(limits.max_tokens, used.total_tokens), max_wall_s=rest(limits.max_wall_s, elapsed_s))
    spent = any(v is not None and v <= 0 for v in (left.max_cost_usd, left.max_tokens, left.max_wall_s))
    return None if spent else left


def _tally(runs: list[tuple[RLMTrace, Path | None]]) -> Counter:
    """Votes per :func:`vote_key` of the runs' answers (None does not vote)."""
    return Counter(key for trace, _ in runs if (key := vote_key(trace.answer)) is not None)


