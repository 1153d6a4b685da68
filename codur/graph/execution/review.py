"""review (engine state Verify): decide from the verdict and the history what happens next.

- passed → done (success; reason "verified", or "answered" for a question, whose
  verdict checks that the agent's loop ended with an answer: ``done`` or a final reply);
- a dry run → done (status and reason "dry_run": no agent was called, so no turn can change anything);
- the same failure signature twice → stuck: repair if eligible, else done (failed, stuck);
- the last turn used → repair if eligible, else done (failed, max_turns);
  a question that got no answer ends with its verdict's reason instead, e.g.
  ``no_answer: agent ended: repeating``;
- a terminal failure after an agent turn that failed on a model outage (a 429 or
  ``insufficient_quota``) ends ``rate_limited`` / ``quota_exhausted`` instead, as a
  replan with the model down does (:func:`codur.graph.routing.outage_end`);
- the agent not among the fixers (``CodurConfig.fixers``): repair if eligible, else done
  (failed, verification_failed): retry and replan would both reach the agent;
- after a failed patch pipeline, an agent turn that made none of the tests failing at the
  start pass (a different failure: the same one is stuck, above) → a **fresh retry**
  (seed 003: "different error → retry"): the turn's edits are reverted and the next turn
  starts from the original code, told what was tried (:data:`FRESH`); after
  ``no_progress_turns`` such turns in a row (default 2), or when the time left is shorter
  than the last turn took, → done (failed, no_progress), when ``stop_without_progress``
  (the default);
- the agent's turn changed nothing (a tool-result-only turn) → replan;
- otherwise → retry the agent with the failure as context.
A run that ends ``failed`` after a verdict that refused the change (it edited a test, emptied
a function, deleted too much: ``Verdict.refused``) has the reason ``refused: <why>`` (e.g.
``refused: edited tests/test_x.py``) in place of ``stuck``, ``max_turns``, ``no_progress`` or
``verification_failed``: the tests may well pass, and the reason says why that is no success.
The route is the next node's name (:class:`codur.graph.routing.Route`): retry is
``delegate``, replan ``plan``, repair ``patch``. Repair goes to the patch node (the
candidate-patch pipeline) when it has not run yet: a fix task verified by tests, with
failing tests and source files of the repo's own beside the tests, when enabled, never in
a dry run (:func:`codur.graph.routing.patch_eligible`).
"""

from __future__ import annotations

from codur.core.budget import Stop
from codur.core.contracts import PatchStatus, RunStatus, StopReason
from codur.graph.context import Run
from codur.graph.nodes import node
from codur.graph.records import AgentOutcome, TurnStatus
from codur.graph.routing import FRESH, OUTAGE_STATUS, Route, outage_end, patch_eligible
from codur.graph.state import CodurState, observation_of, outcome_of, patch_of, verdict_of
from codur.graph.verification.verdict import Verdict


def feedback_from(verdict: Verdict | None) -> str:
    """The failure context handed to the next turn."""
    if verdict is None:
        return ""
    parts = [verdict.reasoning]
    parts += [e.output[-1200:] for e in verdict.evidence if not e.ok][:2]
    if verdict.suggestions:
        parts.append("Suggestions: " + "; ".join(verdict.suggestions))
    return "\n".join(p for p in parts if p)


def decide(state: CodurState, ctx: Run) -> tuple[Route, str, Stop | None]:
    """The route, its reason, and the run's :class:`Stop` when no further turn may start.

    Whether another turn may start is asked of the run's limits (the one termination
    check, :meth:`codur.core.budget.Limits.stop`), not counted here.
    """
    verdict = verdict_of(state)
    question = verdict is not None and verdict.strategy == "answer"
    if verdict is not None and verdict.passed:
        # an answer is checked for being given, not for being right: "answered", not "verified"
        return Route.DONE, "answered" if question else "verified", None
    outcome = outcome_of(state)
    if outcome is not None and outcome.dry_run:
        return Route.DONE, "dry_run", None  # no agent was called: no further turn can change anything
    signatures = state.get("failure_signatures", [])
    stuck = len(signatures) >= 2 and signatures[-1] == signatures[-2]
    stop = ctx.limits.stop(turn=state.get("turn", 0), starting_turn=True)
    if stuck or stop:
        last_chance = stuck or stop.reason == StopReason.MAX_TURNS  # the patch pipeline may still fix it
        if question and last_chance and verdict.signature:
            # a question that got no answer says why, e.g. "no_answer: agent ended: repeating"
            why = Stop(RunStatus.FAILED, verdict.signature, stop.figures if stop else {})
            return Route.DONE, why.reason, why
        if last_chance and patch_eligible(state, ctx):
            return Route.PATCH, "stuck" if stuck else stop.reason, None
        return Route.DONE, "stuck" if stuck else stop.reason, stop
    no_progress = _no_progress(state, ctx, verdict)
    if no_progress is not None:
        if no_progress.reason == FRESH:
            return Route.DELEGATE, FRESH, None
        return Route.DONE, no_progress.reason, no_progress
    return _next_turn(state, ctx, outcome)


def _next_turn(state: CodurState, ctx: Run, outcome: AgentOutcome | None) -> tuple[Route, str, Stop | None]:
    """Where a turn that did not pass goes when the run may go on: a replan after a failed turn or
    one that edited nothing, else a retry; with the agent not among the fixers (retry and replan
    both lead to it) the patch pipeline when eligible, else done."""
    if "agent" not in ctx.config.fixers:
        if patch_eligible(state, ctx):
            return Route.PATCH, "verification_failed", None
        return Route.DONE, "verification_failed", None
    if outcome is not None and outcome.status == TurnStatus.FAILED:
        return Route.PLAN, "agent_failed", None
    if outcome is None or not outcome.edits:
        return Route.PLAN, "no_change", None
    return Route.DELEGATE, "verification_failed", None


def without_progress(state: CodurState, verdict: Verdict | None) -> bool:
    """Whether the last agent turn, after a patch pipeline that applied nothing, made none of
    the tests failing at the start (observe's run) pass. A verdict not from tests, the patch
    node's own turn, or a start with no failing test known is never judged (False)."""
    patched = (patch := patch_of(state)) is not None and patch.status is PatchStatus.PATCHED
    outcome = outcome_of(state)
    if not state.get("patch_attempted") or patched or verdict is None or outcome is None or outcome.agent == "patch":
        return False
    if verdict.strategy not in ("tests", "hybrid"):
        return False
    tests = observation_of(state).tests
    at_start = set(tests.failed) if tests else set()
    return bool(at_start) and not at_start - set(verdict.failing_tests)


def _no_progress(state: CodurState, ctx: Run, verdict: Verdict | None) -> Stop | None:
    """After an agent turn without progress (:func:`without_progress`): a :class:`Stop` whose
    reason is :data:`FRESH` when a fresh retry may start, else the ``no_progress`` stop.

    A retry may start while fewer than ``no_progress_turns`` turns in a row made no progress,
    the last turn completed (one that failed, e.g. on a model outage, was no attempt at the
    bug), the agent is among the fixers, and the time left is at least what the last turn took
    (a turn that cannot finish only spends the user's time). None: progress was made, or
    ``stop_without_progress`` is off.
    """
    if not ctx.config.stop_without_progress or not without_progress(state, verdict):
        return None
    assert verdict is not None
    streak = state.get("turns_without_progress", 0) + 1
    _, seconds_left = ctx.limits.remaining()
    last_turn_s = outcome_of(state).elapsed_s
    figures = {"failing_at_start": len(observation_of(state).tests.failed),
               "failing_now": len(verdict.failing_tests), "turns_without_progress": streak}
    completed = outcome_of(state).status == TurnStatus.COMPLETED  # a turn that failed (a model outage) is no attempt
    if (streak < ctx.config.no_progress_turns and completed and "agent" in ctx.config.fixers
            and seconds_left >= last_turn_s):
        return Stop(RunStatus.FAILED, FRESH, figures)
    if seconds_left < last_turn_s:
        figures.update(seconds_left=round(seconds_left, 1), last_turn_s=round(last_turn_s, 1))
    return Stop(RunStatus.FAILED, "no_progress", figures)


@node("review")
def review_node(state: CodurState, ctx: Run) -> dict:
    """Write the route; a terminal route also writes status and reason."""
    route, reason, stop = decide(state, ctx)
    update: dict = {"route": route.value, "feedback": feedback_from(verdict_of(state)),
                    "retry": FRESH if reason == FRESH else ""}
    if without_progress(state, verdict_of(state)):
        update["turns_without_progress"] = state.get("turns_without_progress", 0) + 1
    elif outcome_of(state) is not None and outcome_of(state).agent != "patch":
        update["turns_without_progress"] = 0
    if route is Route.DONE:
        ok = reason in ("verified", "answered")
        status = RunStatus.DRY_RUN if reason == "dry_run" else RunStatus.SUCCESS if ok else RunStatus.FAILED
        update.update(status=status.value, reason=reason)
        if stop is not None:
            update.update(stop.update())
        verdict = verdict_of(state)
        if update["status"] == RunStatus.FAILED.value and verdict is not None and verdict.refused:
            update["reason"] = f"refused: {verdict.refused}"
        outcome = outcome_of(state)
        if not ok and outcome is not None and outcome.status == TurnStatus.FAILED and outcome.quota in OUTAGE_STATUS:
            update.update(outage_end(outcome.quota, outcome.summary))
    return update
