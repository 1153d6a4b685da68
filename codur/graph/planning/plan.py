"""plan (engine state Plan): classify the task into a TaskType and choose the agent.

A fast path without a model handles clear cases (one category of keywords, or
failing tests and a fix-like task); otherwise, and on every replan, the planner
role's model answers in JSON. No keyword ends a run: the plan only classifies.
"""

from __future__ import annotations

import re

from langchain_core.messages import HumanMessage, SystemMessage

from codur.engine.contracts import RunStatus
from codur.graph.context import CodurContext
from codur.graph.execution.patch import patch_eligible
from codur.graph.nodes import node
from codur.graph.prompts import build_system_prompt
from codur.graph.state import CodurState
from codur.llm.replies import json_objects
from codur.tools.registry import TaskType

KEYWORDS: dict[TaskType, str] = {
    TaskType.CODE_FIX: r"\b(fix|bug|fail\w*|broken|error|crash\w*|wrong|make .* pass)\b",
    TaskType.CODE_GENERATION: r"\b(add|implement|create|write|support|new)\b",
    TaskType.REFACTOR: r"\b(refactor|rename|extract|simplify|clean ?up|restructure)\b",
    TaskType.DOCUMENTATION: r"\b(docs?|docstrings?|readme|comment\w*|document)\b",
    TaskType.EXPLANATION: r"(^(where|what|how|why|which|explain)\b|\?\s*$)",
}


def classify(task: str, failing_tests: bool) -> TaskType | None:
    """The fast path: a TaskType when the task's wording is unambiguous, else None."""
    text = task.lower()
    hits = [t for t, pattern in KEYWORDS.items() if re.search(pattern, text)]
    if TaskType.EXPLANATION in hits:
        return TaskType.EXPLANATION if len(hits) == 1 else None
    if TaskType.CODE_FIX in hits and failing_tests:
        return TaskType.CODE_FIX
    return hits[0] if len(hits) == 1 else None


def _ask_planner(state: CodurState, ctx: CodurContext, agents: list[str]) -> tuple[dict, int, int]:
    system, _ = build_system_prompt("planner", TaskType.CODE_FIX, agents=agents)
    obs = state.get("observation", {})
    lines = [f"Task: {state['task']}", f"Files: {', '.join(obs.get('files', [])[:20])}"]
    if tests := obs.get("tests"):
        lines.append(f"Tests: {tests['summary']}")
    if feedback := state.get("feedback"):
        lines.append(f"The last attempt failed:\n{feedback[:1200]}")
    lines.append("Answer with the JSON object only.")
    assert ctx.models is not None
    reply = ctx.models.models_for("planner")[0].invoke([SystemMessage(system), HumanMessage("\n".join(lines))])
    tokens = (reply.usage_metadata or {}).get("total_tokens", 0)
    objects = json_objects(str(reply.content))
    return (objects[0] if objects else {}), 1, tokens


@node("plan")
def plan_node(state: CodurState, ctx: CodurContext) -> dict:
    """Choose task_type and agent; on replan ask the planner model for new steps."""
    agents = [ctx.config.default_agent, *[a for a in ctx.config.agents if a != ctx.config.default_agent]]
    failing = bool(state.get("observation", {}).get("tests", {}).get("failed"))
    replanning = bool(state.get("feedback"))
    fast = None if replanning else classify(state["task"], failing)
    plan: dict = {"source": "fast_path", "steps": []}
    llm_calls = tokens = 0
    task_type = fast
    if fast is None and not ctx.config.dry_run:
        answer, llm_calls, tokens = _ask_planner(state, ctx, agents)
        plan = {"source": "planner", "steps": [str(s) for s in answer.get("steps", [])][:6]}
        try:
            task_type = TaskType(str(answer.get("task_type", "")).lower())
        except ValueError:
            task_type = None
        if replanning and state.get("task_type"):
            # A replan changes the steps, not what the task is: the 1.5B planner turned
            # "make the failing tests pass" into code_validation on a replan, which took
            # the edit tools away and made the run ineligible for repair.
            task_type = TaskType(state["task_type"])
        if answer.get("agent") in agents:
            plan["agent"] = answer["agent"]
    if task_type is None:
        task_type = TaskType(state.get("task_type") or (TaskType.CODE_FIX if failing else TaskType.CODE_GENERATION))
    plan.setdefault("agent", state.get("agent") or ctx.config.default_agent)
    update: dict = {"task_type": task_type.value, "plan": plan, "llm_calls": llm_calls, "tokens": tokens}
    # cheapest fixer first: the candidate-patch pipeline before the tool-loop agent
    if patch_eligible({**state, "task_type": task_type.value}, ctx):  # type: ignore[typeddict-item]
        update["route"] = "patch"
    elif "agent" in ctx.config.fixers:
        update["route"] = "delegate"
    else:
        update.update(route="done", status=RunStatus.FAILED.value, reason="no_fixer (the agent is disabled)")
    return update
