"""The critic model as a verification agent: a tool loop that finds out how the project is
checked, runs the checks and answers a structured verdict.

The loop is the coding agent's :class:`AgentExecutor` over a read-and-run selection of the
registry (TaskTypes CODE_VALIDATION and RESULT_VERIFICATION, no writing tool), listed in
the prompt by the registry's own rendering. The loop's prompt does not show the verdict's
format (the embedded 1.5B model, shown it, answered a verdict at once without running
anything); once the loop ends, a :class:`ModelVerdict` is read from the final reply when it
holds one, else asked for in one more call: under a JSON-schema ``response_format``
(``with_structured_output(..., method="json_schema")``) for an OpenAI-compatible server,
in plain text for any other model. When neither gives a verdict the caller falls back to
the deterministic verifier.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from codur.graph.execution.agent_executor import AgentExecutor
from codur.graph.prompts import CALL_FORMAT
from codur.graph.verification.verdict import Evidence, ModelVerdict, parse_model_verdict
from codur.llm.policy import CallPolicy
from codur.tools.executor import ToolExecutor
from codur.tools.registry import (
    REGISTRY,
    SideEffect,
    TaskType,
    ToolRegistry,
    ToolSpec,
    list_tools_for_tasks,
    render_tool_block,
)

MAX_ITERATIONS = 4  # model calls of one verification loop
NOT_FOR_VERIFIER = {"clarify"}  # the verifier cannot ask the user a question

VERIFIER = """You verify a coding agent's work on a Python repository. Find out how this project \
is checked (its tests, its entry points run and their output compared with what the task expects, \
a static check, or several of these), run those checks with the tools, then judge the result.
{call_format}

Tools:
{tools}

When you have seen the results, reply with your conclusion, without a tool call."""

VERDICT_NOW = """Now give your verdict as one JSON object:
{"passed": true or false, "strategy": "tests" | "entry_points" | "static" | "hybrid", \
"evidence": [{"command": "what you ran", "output": "an excerpt"}], "reasoning": "why", \
"suggestions": ["a concrete next step"]}"""


def verifier_tools(registry: ToolRegistry | None = None) -> list[ToolSpec]:
    """The verifier's tools: the registry's CODE_VALIDATION and RESULT_VERIFICATION tools that
    write nothing (no FILE_MUTATION, no STATE_CHANGE)."""
    specs = list_tools_for_tasks([TaskType.CODE_VALIDATION, TaskType.RESULT_VERIFICATION],
                                 exclude_side_effects=[SideEffect.FILE_MUTATION, SideEffect.STATE_CHANGE],
                                 registry=registry or REGISTRY)
    return [s for s in specs if s.name not in NOT_FOR_VERIFIER]


def verifier_prompt(specs: list[ToolSpec]) -> str:
    """The verifier's system prompt, its tool block rendered from ``specs``."""
    return VERIFIER.format(call_format=CALL_FORMAT.format(), tools=render_tool_block(specs))


MAX_DIFF_CHARS = 2000


@dataclass(frozen=True)
class ChangeUnderReview:
    """What the verifier is shown: what was asked and what changed.

    Attributes:
        task: the user's task; task_type: its TaskType value.
        changed: repo-relative paths the run changed.
        summary: the agent's own words on what it did ("" when none).
        diff: the run's diff so far (unified; "" when none).
    """

    task: str
    task_type: str
    changed: list[str]
    summary: str = ""
    diff: str = ""


def task_message(change: ChangeUnderReview) -> str:
    """The user message: what was asked, what changed (the run's diff, cut at
    :data:`MAX_DIFF_CHARS` characters), what the agent says it did."""
    parts = [f"Task: {change.task}", f"Task type: {change.task_type}",
             "Files changed: " + (", ".join(change.changed[:20]) if change.changed else "none")]
    if (diff := change.diff).strip():
        cut = f"\n…[{len(diff) - MAX_DIFF_CHARS} more characters]" if len(diff) > MAX_DIFF_CHARS else ""
        parts.append(f"The change:\n```diff\n{diff[:MAX_DIFF_CHARS]}{cut}\n```")
    if change.summary.strip():
        parts.append(f"The agent's summary: {change.summary.strip()[:600]}")
    parts.append("First run a check: reply with one tool call in a ```json block. Give your verdict after "
                 "you have seen the results.")
    return "\n".join(parts)


@dataclass
class ModelRun:
    """What the verification loop produced.

    Attributes:
        verdict: the model's verdict, or None when its reply was not one.
        problem: why there is no verdict (for the record), else "".
        evidence: the tool calls the model made, with their real outputs.
        llm_calls / tokens: model usage.
        stop_reason: how the loop ended (see :class:`codur.graph.execution.agent_executor.AgentRun`).
    """

    verdict: ModelVerdict | None = None
    problem: str = ""
    evidence: list[Evidence] = field(default_factory=list)
    llm_calls: int = 0
    tokens: int = 0
    stop_reason: str = ""


def _call_text(call: dict) -> str:
    args = ", ".join(f"{k}={json.dumps(v, default=str)[:80]}" for k, v in call["args"].items())
    return f"{call['name']}({args})"


def tool_evidence(messages: list[BaseMessage]) -> list[Evidence]:
    """Each tool call of the trajectory with its output; ``ok`` False when the tool failed."""
    calls = {c["id"]: c for m in messages if isinstance(m, AIMessage) for c in m.tool_calls}
    out = []
    for m in messages:
        if isinstance(m, ToolMessage) and m.tool_call_id in calls and calls[m.tool_call_id]["name"] != "done":
            ok = False if m.status == "error" else None
            out.append(Evidence(command=_call_text(calls[m.tool_call_id]), output=str(m.content)[-1500:], ok=ok))
    return out


def verdict_call(model: BaseChatModel, messages: list[BaseMessage]) -> tuple[ModelVerdict | None, int]:
    """Ask for the verdict after the loop: an OpenAI-compatible endpoint (the embedded model's
    server too) under a JSON-schema ``response_format``
    (``with_structured_output(ModelVerdict, method="json_schema")``), any other chat model in
    plain text, its JSON object read from the reply.

    Returns:
        (the verdict or None, tokens used).

    Raises:
        Exception: whatever the model call raises, a reply outside the schema included
            (the caller falls back).
    """
    from langchain_openai.chat_models.base import BaseChatOpenAI

    prompt = [*messages, HumanMessage(VERDICT_NOW)]
    if not isinstance(model, BaseChatOpenAI):
        reply = model.invoke(prompt)
        return parse_model_verdict(str(reply.content)), (reply.usage_metadata or {}).get("total_tokens", 0)
    structured = model.with_structured_output(ModelVerdict, method="json_schema", include_raw=True)
    out = structured.invoke(prompt)
    raw = out.get("raw") if isinstance(out, dict) else None
    tokens = ((getattr(raw, "usage_metadata", None) or {}).get("total_tokens", 0)) if raw is not None else 0
    parsed = out.get("parsed") if isinstance(out, dict) else None
    return (parsed if isinstance(parsed, ModelVerdict) else None), tokens


def run_model_verifier(model: BaseChatModel | Sequence[BaseChatModel], tools: ToolExecutor,
                       change: ChangeUnderReview, *, should_stop: Callable[[], str | None] | None = None,
                       policy: CallPolicy | None = None) -> ModelRun:
    """Run the verification loop (at most :data:`MAX_ITERATIONS` model calls, one more for a
    structured verdict) and read its verdict.

    Args:
        model: the critic role's chat model, or its chain (first choice first).
        tools: the run's ToolExecutor (the loop is limited to :func:`verifier_tools`).
        change: what was asked, what changed, the agent's words, the diff shown to the model.
        should_stop: the run's limits, checked before each model call (returns a reason).
        policy: the model-call policy (:mod:`codur.llm.policy`): each loop call retried, then the
            chain's next model.

    Returns:
        A :class:`ModelRun`; ``verdict`` is None when the reply held no valid verdict.
        Model errors propagate (the caller falls back to the deterministic verdict).
    """
    specs = verifier_tools()
    chain = [model] if isinstance(model, BaseChatModel) else list(model)
    loop = AgentExecutor(chain, tools, specs, max_iterations=MAX_ITERATIONS, should_stop=should_stop, policy=policy,
                         role="critic")
    trajectory = loop.run([SystemMessage(verifier_prompt(specs)),
                           HumanMessage(task_message(change))])
    result = ModelRun(evidence=tool_evidence(trajectory.messages), llm_calls=trajectory.llm_calls,
                      tokens=trajectory.tokens, stop_reason=trajectory.stop_reason)
    if trajectory.stop_reason.startswith("stopped"):
        result.problem = f"verification loop {trajectory.stop_reason}"
        return result
    result.verdict = parse_model_verdict(trajectory.final_text)  # a model may answer it unasked
    if result.verdict is not None:
        return result
    if should_stop and (reason := should_stop()):
        result.problem = f"no verdict: the run stopped before the verdict call ({reason})"
        return result
    result.llm_calls += 1
    try:
        result.verdict, tokens = verdict_call(chain[0], trajectory.messages)
        result.tokens += tokens
        why = "" if result.verdict is not None else "; its verdict reply is not a verdict either"
    except Exception as exc:  # noqa: BLE001 - a reply outside the schema, or the call failed: fall back
        why = f"; the verdict call failed: {type(exc).__name__}: {str(exc)[:160]}"
    if result.verdict is None:
        result.problem = (f"the model's reply is not a verdict (loop ended: {trajectory.stop_reason}): "
                          f"{trajectory.final_text[:160]!r}{why}")
    return result
