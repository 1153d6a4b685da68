"""The verification agent's public names, kept here for importers; the code is in
:mod:`codur.graph.verification` (verdict, deterministic, llm, judge)."""

from __future__ import annotations

from codur.graph.verification.deterministic import (
    ANSWER_ENDINGS,
    CHANGE_TASKS,
    QUESTION_TASKS,
    answer_verdict,
    verify_repo,
)
from codur.graph.verification.verdict import Evidence, ModelVerdict, Verdict, parse_model_verdict

__all__ = ["ANSWER_ENDINGS", "CHANGE_TASKS", "QUESTION_TASKS", "Evidence", "ModelVerdict", "Verdict",
           "answer_verdict", "parse_model_verdict", "verify_repo"]
