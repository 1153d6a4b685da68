"""Combining the critic model's verdict with codur's own checks.

The deterministic checks are the ground truth where they can speak: with tests, the
suite decides pass or fail and a model that disagrees is overruled; without tests, the
model decides, except that a changed file that does not parse cannot pass. A model reply
that is no verdict (asked once more for one, :func:`codur.graph.verification.llm.run_model_verifier`)
falls back to the deterministic verdict, and the verdict says so; without tests such a
verdict that passed is ``unverified``: no verdict is never a pass.
"""

from __future__ import annotations

import re

from codur.graph.verification.llm import ModelRun
from codur.graph.verification.verdict import Evidence, ModelVerdict, Verdict


def said(passed: bool) -> str:
    return "passed" if passed else "failed"


SECONDS = re.compile(r"\d+(\.\d+)?s\b")


def model_signature(run: ModelRun, verdict: ModelVerdict) -> str:
    """A stable key of the model's failure: what ran and the end of its output, durations
    left out (the model's wording changes from turn to turn, the program's output does not)."""
    runs = [f"{e.command}|{SECONDS.sub('_s', e.output[-200:])}" for e in run.evidence]
    return "\n".join(["model: failed", *runs]) if runs else f"model: failed: {verdict.strategy}"


def from_model(run: ModelRun, verdict: ModelVerdict) -> Verdict:
    """The model's verdict as the graph keeps it. Its evidence is the tool calls the model
    really made, with their outputs; what it reports in its verdict's ``evidence`` is not
    kept (measured: the embedded model reports commands it never ran)."""
    return Verdict(passed=verdict.passed, strategy=verdict.strategy, evidence=list(run.evidence),
                   reasoning=verdict.reasoning, suggestions=verdict.suggestions[:5], source="model",
                   signature="" if verdict.passed else model_signature(run, verdict))


def with_tests(deterministic: Verdict, run: ModelRun) -> Verdict:
    """Tests decide: the model adds reasoning and suggestions when it agrees, and is overruled
    (recorded in ``overruled``) when it does not."""
    verdict = deterministic.model_copy(deep=True)
    model = run.verdict
    if model is None:
        verdict.fallback = run.problem or "no verdict from the model"
        return verdict
    if model.passed != verdict.passed:
        n = len(verdict.failing_tests)
        facts = (("1 test fails" if n == 1 else f"{n} tests fail") if not verdict.passed
                 else f"{verdict.passed_tests} tests pass")
        verdict.overruled = f"model said {said(model.passed)}; {facts}"
        return verdict
    verdict.reasoning = model.reasoning or verdict.reasoning
    verdict.suggestions = model.suggestions[:5]
    verdict.evidence += [e for e in run.evidence if e.command != "run_pytest()"]
    return verdict


def unusable(run: ModelRun) -> str:
    """Why the model's verdict cannot decide ('' when it can): there is none, or it says
    "passed" without a single check that ran: no tool call at all, or only calls that failed
    (measured with the embedded 1.5B model: a verdict with invented evidence in its first
    reply; "passed" after four calls on a path that does not exist)."""
    if run.verdict is None:
        return run.problem or "no verdict from the model"
    if run.verdict.passed and not run.evidence:
        return "the model said passed without running any check"
    if run.verdict.passed and all(e.ok is False for e in run.evidence):
        return f"the model said passed, but each of its {len(run.evidence)} checks failed to run"
    return ""


def without_tests(run: ModelRun, static: list[Evidence], fallback: Verdict | None) -> Verdict:
    """No tests: the model's verdict, overruled by a changed file that does not parse; when the
    model's verdict is :func:`unusable`, ``fallback`` (the deterministic verdict) marked as such,
    and ``unverified`` when it passed (a reply that is no verdict counts as none, never as a pass).

    Raises:
        ValueError: the model's verdict is unusable and no fallback is given.
    """
    if problem := unusable(run):
        if fallback is None:
            raise ValueError(f"no usable model verdict ({problem}) and no deterministic fallback")
        verdict = fallback.model_copy(deep=True)
        verdict.fallback = problem
        if verdict.passed:  # no verdict is no pass: the run may succeed, never as verified
            verdict.unverified = verdict.unverified or f"the critic gave no verdict ({problem})"
        return verdict
    assert run.verdict is not None
    verdict = from_model(run, run.verdict)
    broken = [e for e in static if not e.ok]
    if verdict.passed and broken:
        verdict.passed = False
        files = "1 changed file does" if len(broken) == 1 else f"{len(broken)} changed files do"
        verdict.overruled = f"model said passed; {files} not parse"
        verdict.evidence += broken
        verdict.signature = "\n".join(e.output for e in broken)
    return verdict


def judged_unproven(verdict: Verdict, run: ModelRun) -> Verdict:
    """A passed but ``unverified`` verdict (no test exercised what the task asked), after the
    critic model judged the diff against the task: failed when the model says so (its reasoning
    and suggestions go to the next turn); still passed and ``unverified`` when it agrees or its
    verdict is :func:`unusable` (``fallback`` says why) — a model's word is no test."""
    out = verdict.model_copy(deep=True)
    if problem := unusable(run):
        out.fallback = problem
        return out
    assert run.verdict is not None
    if run.verdict.passed:
        out.reasoning = f"{out.reasoning}; the critic model judged the diff against the task: passed".strip("; ")
        return out
    judged = from_model(run, run.verdict)
    judged.evidence = out.evidence + judged.evidence
    judged.failing_tests, judged.passed_tests, judged.ignored_tests = (out.failing_tests, out.passed_tests,
                                                                        out.ignored_tests)
    judged.strategy = out.strategy
    return judged
