"""The verify node's events (codur/graph/execution/verification_agent.py)."""

from __future__ import annotations

from dataclasses import dataclass

from codur.core.events.base import OMIT, Event


@dataclass(frozen=True, kw_only=True)
class VerifyStart(Event, kind="verify.start"):
    """Verification started: the task type, whether there are tests, whether a model judges."""

    task_type: str
    has_tests: bool
    model: bool


@dataclass(frozen=True, kw_only=True)
class VerifyUnverified(Event, kind="verify.unverified"):
    """The change could not be verified: why, the verdict, whether a model judged."""

    why: str
    passed: bool
    judged: bool


@dataclass(frozen=True, kw_only=True)
class VerifyOverruled(Event, kind="verify.overruled"):
    """The tests overruled the model's verdict."""

    model_said: bool | None
    overruled: str | None


@dataclass(frozen=True, kw_only=True)
class VerifyVerdict(Event, kind="verify.verdict"):
    """The verdict: passed, its strategy and source, and why it was overruled, fell back or refused the change;
    ``plausible``: a passed change's held-back anti-patterns in words (:mod:`codur.validate.antipatterns`)."""

    passed: bool
    strategy: str
    source: str
    overruled: str | None
    fallback: str | None
    refused: str | None
    plausible: str = OMIT
