"""The verdict: what the verification agent concludes, as a pydantic model.

:class:`ModelVerdict` is the schema the critic model answers in (the ``response_format``
JSON schema on an endpoint that supports it); :class:`Verdict` is what the graph keeps
(``state["verification_details"]``): the model's fields plus where the verdict came from, an
overrule by the deterministic checks, and the failure signature the router compares.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from codur.core.fields import FieldAccess
from codur.llm.replies import json_objects

ModelStrategy = Literal["tests", "entry_points", "static", "hybrid"]
Strategy = Literal["tests", "entry_points", "static", "hybrid", "answer"]
Source = Literal["model", "deterministic"]


class Evidence(BaseModel):
    """One check that was run.

    Attributes:
        command: what ran, e.g. ``pytest`` or ``run_python_file(path='greet.py')``.
        output: an excerpt of its output (at most ~1,500 characters).
        ok: the check passed; None when the model reported it without saying.
    """

    command: str
    output: str = ""
    ok: bool | None = None


class ModelVerdict(BaseModel):
    """The critic model's answer (also its JSON schema for ``response_format``)."""

    passed: bool = Field(description="the change does what the task asks")
    strategy: ModelStrategy = Field(description="how it was checked: tests, entry_points, static or hybrid")
    evidence: list[Evidence] = Field(default_factory=list, description="the checks run: command and output excerpt")
    reasoning: str = Field("", description="why it passed or failed, one or two sentences")
    suggestions: list[str] = Field(default_factory=list, description="concrete next steps when it failed")


class Verdict(FieldAccess, BaseModel):
    """The verification agent's structured verdict (kept in state as ``verification``); its
    fields also read as a mapping (``verdict["passed"]``: :class:`codur.core.fields.FieldAccess`).

    Attributes:
        passed: the change is verified.
        strategy: tests | entry_points | static | hybrid | answer (questions only).
        evidence: the checks run, each {command, output, ok}.
        reasoning: why it passed or failed.
        suggestions: next steps for the agent.
        source: "model" (the critic model's verdict) or "deterministic" (codur's own checks).
        overruled: set when the deterministic checks overruled the model, e.g.
            ``"model said passed; 2 tests fail"``; None otherwise.
        fallback: why the model's verdict could not be used (its reply was not a verdict,
            the model failed); None when it was used or not asked.
        signature: a stable key of the failure (the same failure twice → stuck).
        failing_tests: test ids still failing.
        passed_tests: how many tests passed.
        ignored_tests: failing tests a feature task's verdict did not hold against it: they failed
            before the run and do not belong to the task (:mod:`codur.graph.task_scope`).
        refused: why the run's change was refused whatever the tests say (it edited a test,
            emptied a function, deleted too much: :mod:`codur.validate.footprint`), e.g.
            ``edited tests/test_x.py``; None when it was not.
        checked: how the behaviour the task asks for was checked, when it was (e.g. ``2 failing
            tests about the task pass now``); "" otherwise.
        unverified: why a passed verdict of a fix or feature task is no proof (no test exercises
            what was asked: :func:`codur.graph.task_scope.behaviour_checked`); the run then ends
            ``success`` with reason ``unverified``, never ``verified``. None when proven or failed.
        plausible: why a passed verdict of a fix or feature task is only plausible: the change's
            held-back anti-patterns in words (``deletes the guard at utils.py:6 (...); review
            whether bad input still needs rejecting``: :mod:`codur.validate.antipatterns`); the run
            then ends ``success`` with reason ``plausible``. None when there is none, or failed.
    """

    passed: bool
    strategy: Strategy
    evidence: list[Evidence] = Field(default_factory=list)
    reasoning: str = ""
    suggestions: list[str] = Field(default_factory=list)
    source: Source = "deterministic"
    overruled: str | None = None
    fallback: str | None = None
    signature: str = ""
    failing_tests: list[str] = Field(default_factory=list)
    passed_tests: int = 0
    ignored_tests: list[str] = Field(default_factory=list)
    refused: str | None = None
    checked: str = ""
    unverified: str | None = None
    plausible: str | None = None

    def as_dict(self) -> dict:
        """The verdict as plain JSON-serialisable data (evidence as dicts)."""
        return self.model_dump()


def parse_model_verdict(text: str) -> ModelVerdict | None:
    """The first JSON object in ``text`` (fenced, bare or inside prose) that is a valid
    :class:`ModelVerdict`, or None. A strategy the schema does not know is no verdict."""
    for obj in json_objects(text):
        try:
            return ModelVerdict.model_validate(obj)
        except ValidationError:
            continue
    return None
