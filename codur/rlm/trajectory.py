"""One trajectory of the REPL loop: what the answer calls and the FINAL rules read of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codur.rlm.budget import Budget
from codur.rlm.sandbox import Sandbox
from codur.rlm.trace import RLMTrace


@dataclass(frozen=True)
class Trajectory:
    """One run of the loop over one input: the input itself (``context``: a str, or a
    JSON-serialisable list/dict, the REPL variable of that name), the REPL it lives in
    (``sandbox``), the run's ``budget`` and its ``trace`` (whose ``task`` is the question).
    Built once by :meth:`codur.rlm.engine.RLMEngine.execute` and handed down."""

    context: Any
    sandbox: Sandbox
    budget: Budget
    trace: RLMTrace

    @property
    def question(self) -> str:
        """The question this trajectory answers."""
        return self.trace.task
