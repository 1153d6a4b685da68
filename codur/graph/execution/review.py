"""review (engine state Verify): decide from the verdict and the history what happens next.

- passed → done (success; reason "verified", or "answered" for a question, whose
  verdict checks that the agent's loop ended with an answer: ``done`` or a final reply);
- a dry run → done (failed, reason "dry_run": no agent was called, so no turn can change anything);
- the same failure signature twice → stuck: repair if eligible, else done (failed, stuck);
- the last turn used → repair if eligible, else done (failed, max_turns);
  a question that got no answer ends with its verdict's reason instead, e.g.
  ``no_answer: agent ended: repeating``;
- a terminal failure after an agent turn that failed on a model outage (a 429 or
  ``insufficient_quota``) ends ``rate_limited`` / ``quota_exhausted`` instead, as a
  replan with the model down does (:func:`codur.graph.planning.plan.outage_end`);
- the agent's turn changed nothing (a tool-result-only turn) → replan;
- otherwise → retry the agent with the failure as context.
The "repair" route goes to the patch node (the candidate-patch pipeline) when it has not
run yet: a fix task verified by tests, with failing tests and source files of the
repo's own beside the tests, when enabled, never in a dry run
(:func:`codur.graph.execution.patch.patch_eligible`).
"""

from __future__ import annotations

from typing import Literal

from codur.engine.contracts import RunStatus
from codur.graph.context import CodurContext
from codur.graph.execution.patch import patch_eligible
from codur.graph.nodes import node
from codur.graph.planning.plan import OUTAGE_STATUS, outage_end
from codur.graph.state import CodurState

Route = Literal["done", "retry", "replan", "repair"]


def feedback_from(verdict: dict) -> str:
    """The failure context handed to the next turn."""
    parts = [verdict.get("reasoning", "")]
    parts += [e["output"][-1200:] for e in verdict.get("evidence", []) if not e.get("ok")][:2]
    if verdict.get("suggestions"):
        parts.append("Suggestions: " + "; ".join(verdict["suggestions"]))
    return "\n".join(p for p in parts if p)


def decide(state: CodurState, ctx: CodurContext) -> tuple[Route, str]:
    """The route and its reason."""
    verdict = state.get("verification", {})
    question = verdict.get("strategy") == "answer"
    if verdict.get("passed"):
        # an answer is checked for being given, not for being right: "answered", not "verified"
        return "done", "answered" if question else "verified"
    outcome = state.get("agent_outcome", {})
    if outcome.get("dry_run"):
        return "done", "dry_run"
    signatures = state.get("failure_signatures", [])
    stuck = len(signatures) >= 2 and signatures[-1] == signatures[-2]
    assert ctx.limits is not None
    out_of_turns = state.get("turn", 0) >= ctx.limits.max_turns
    if stuck or out_of_turns:
        if question and verdict.get("signature"):
            return "done", verdict["signature"]  # e.g. "no_answer: agent ended: repeating"
        return ("repair", "stuck" if stuck else "max_turns") if patch_eligible(state, ctx) else \
            ("done", "stuck" if stuck else "max_turns")
    if outcome.get("status") == "failed":
        return "replan", "agent_failed"
    if not outcome.get("edits"):
        return "replan", "no_change"
    return "retry", "verification_failed"


@node("review")
def review_node(state: CodurState, ctx: CodurContext) -> dict:
    """Write the route; a terminal route also writes status and reason."""
    route, reason = decide(state, ctx)
    update: dict = {"route": route, "feedback": feedback_from(state.get("verification", {}))}
    if route == "done":
        ok = reason in ("verified", "answered")
        update.update(status=(RunStatus.SUCCESS if ok else RunStatus.FAILED).value, reason=reason)
        outcome = state.get("agent_outcome", {})
        if not ok and outcome.get("status") == "failed" and outcome.get("quota") in OUTAGE_STATUS:
            update.update(outage_end(outcome["quota"], outcome.get("summary", "")))
    return update
