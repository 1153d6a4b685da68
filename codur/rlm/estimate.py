"""What one RLM model call costs, for the system prompt's budget line (:class:`CallEstimate`),
and the character-per-token figures prompts are measured with before they are sent."""

from __future__ import annotations

from dataclasses import dataclass

from codur.core.usage import Usage
from codur.llm.pricing import cost_usd
from codur.rlm.budget import Budget

CHARS_PER_TOKEN = 4  # a prompt's tokens, estimated from its characters before it is sent
DIRECT_CHARS_PER_TOKEN = 3  # the same for the direct path's fit: dense logs and JSON run ~3 chars a token
FIRST_ANSWER_TOKENS = 500  # an answer's assumed length, tokens, until one has been measured


@dataclass(frozen=True)
class CallEstimate:
    """What one model call costs: seconds (None: not measured yet) and USD (None: no price known)."""

    seconds: float | None
    usd: float | None

    @classmethod
    def from_budget(cls, budget: Budget, *, measured: Usage | None = None,
                    usd_per_mtok: tuple[float, float] | None = None, prompt_chars: int = 0) -> CallEstimate:
        """The mean seconds and USD per call, measured: over every call of this run so far (the
        root budget), else over ``measured`` (the same model's earlier runs).

        Before any call was measured, the USD come from the configured model's price
        ``usd_per_mtok`` (USD per million tokens in, out: :func:`codur.llm.pricing.price_per_mtok`)
        for a prompt of ``prompt_chars`` characters and a :data:`FIRST_ANSWER_TOKENS` answer, and
        the seconds are None (said as "not measured yet", never a made-up figure).
        """
        root = budget
        while root.parent is not None:
            root = root.parent
        for spent in (root.spent, measured or Usage()):
            if spent.calls:
                return cls(spent.model_s / spent.calls, spent.cost_usd / spent.calls)
        usd = None if usd_per_mtok is None else cost_usd(prompt_chars // CHARS_PER_TOKEN, FIRST_ANSWER_TOKENS,
                                                        usd_per_mtok)
        return cls(None, usd)

    def describe(self, calls: float) -> str:
        seconds = "time not measured yet" if self.seconds is None else f"~{self.seconds * calls:.0f}s"
        usd = "cost unknown (no price for the model)" if self.usd is None else f"~${self.usd * calls:.4f}"
        return f"~{calls:g} model call(s), {seconds}, {usd}."
