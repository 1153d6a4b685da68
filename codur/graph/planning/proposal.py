"""A read-only run of a task that needs an edit: the plan and a proposed diff, nothing written.

With the tool policy ``read_only`` (``codur run --read-only``) no tool writes or runs code, so
an agent asked to fix or change something can only fail, turn after turn. Instead the first
plan says at once that nothing will be written (event ``plan.read_only``), asks the actor
model once for the change as a unified diff (when a fixer that calls a model is enabled),
and ends the run: status ``success``, reason ``read_only_proposal``, the summary holding the
plan and the proposed diff (not applied, not tested).
"""

from __future__ import annotations

import re

from langchain_core.messages import HumanMessage, SystemMessage

from codur.core.contracts import RunStatus
from codur.core.events import emit
from codur.core.events.plan import PlanReadOnly
from codur.graph.context import Run
from codur.graph.records import AgentOutcome, PlanInfo
from codur.graph.state import CodurState, observation_of
from codur.llm.policy import CallPolicy, with_policy
from codur.testing.ids import is_test_file
from codur.tools.context import ToolError

REASON = "read_only_proposal"
#: Source shown to the model for its proposal, lines at most.
MAX_LINES = 400
SYSTEM = ("You propose a code change for a task. You cannot write files or run anything. Reply with the "
          "change as one unified diff (--- a/path, +++ b/path, @@ hunks) in a ```diff block, then one "
          "sentence saying what it does.")
_FENCE = re.compile(r"```(?:diff|patch)?\s*\n(.*?)```", re.DOTALL)


def proposed_diff(reply: str) -> str:
    """The unified diff in a model's reply: a fenced block holding ``---``/``+++`` lines, else
    the reply from its first ``--- `` line; "" when it has none."""
    for block in _FENCE.findall(reply):
        if "+++ " in block and "--- " in block:
            return block.strip() + "\n"
    start = reply.find("--- ")
    return reply[start:].strip() + "\n" if start != -1 and "+++ " in reply[start:] else ""


def _sources(state: CodurState, ctx: Run) -> str:
    """The code shown with the task: observe's sources under test, else the repo's own
    modules, small ones first, up to :data:`MAX_LINES` lines."""
    obs = observation_of(state)
    if obs.sources:
        return "\n\n".join(f"{rel}:\n{text}" for rel, text in obs.sources.items())
    parts, budget = [], MAX_LINES
    for rel in obs.files:
        if is_test_file(rel):
            continue
        try:
            text = ctx.tools.ctx.read_text(rel)
        except ToolError:
            continue
        lines = text.splitlines()
        if len(lines) > budget:
            continue
        budget -= len(lines)
        parts.append(f"{rel}:\n" + "\n".join(f"{i:4d}| {line}" for i, line in enumerate(lines, 1)))
    return "\n\n".join(parts)


def read_only_end(state: CodurState, ctx: Run, task_type: str, plan: PlanInfo) -> dict:
    """The plan node's update that ends a read-only run of an edit task (module docstring)."""
    emit(PlanReadOnly(task_type=task_type,
                      message="read-only: nothing will be written; the run ends with the plan and a proposed diff"))
    diff, note = "", ""
    if not ctx.config.model_fixers():
        note = "no diff proposed: no fixer that calls a model is enabled"
    else:
        chain = with_policy(ctx.models.models_for("actor"), CallPolicy.for_run(ctx.config, ctx.limits), role="actor")
        prompt = f"Task: {state.get('task', '')}\n\nThe code:\n{_sources(state, ctx)}"
        try:
            reply = str(chain.invoke([SystemMessage(SYSTEM), HumanMessage(prompt)]).content)
            diff = proposed_diff(reply)
            note = "" if diff else f"no diff proposed: the model's reply holds none ({reply.strip()[:120]!r})"
        except Exception as exc:  # noqa: BLE001 - the proposal is advice: its failure is said, not raised
            note = f"no diff proposed: the model failed ({type(exc).__name__}: {str(exc)[:160]})"
    steps = [f"  {i}. {s}" for i, s in enumerate(plan.steps, 1)]
    lines = [f"read-only: nothing was written (a {task_type} task needs an edit)."]
    if steps:
        lines += ["plan:", *steps]
    lines += ["proposed diff (not applied, not tested):", diff.rstrip()] if diff else [note]
    outcome = AgentOutcome(agent="plan", status="completed", summary="\n".join(lines))
    return {"status": RunStatus.SUCCESS.value, "reason": REASON, "agent_outcome": outcome}
