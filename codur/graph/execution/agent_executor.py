"""AgentExecutor: the agent's tool loop, and LLMAgent, the loop behind the AgentPort protocol.

model reply → detect tool calls (native, else JSON or a plain-text call in the content) →
ToolExecutor (:func:`execute_tool_calls`) →
ToolMessages back → repeat, until a reply has no tool call, the agent calls
``done``, or ``max_iterations`` model calls were made. Between model calls the
run's limits are checked (``should_stop``), so Ctrl-C, timeouts and token budgets
stop the loop within one call. A call identical to an earlier one, with no edit in
between, is not run again: the model is told to move on (small models loop on
read_file); two refused repeats in a row end the turn. The message list is the trajectory.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable

from codur.core.events import emit
from codur.core.events.agent import AgentNudge, AgentReply
from codur.core.ports import AgentResult, AgentTask
from codur.llm.factory import wants_native_tools
from codur.llm.policy import CallPolicy, with_policy
from codur.tools.detection import detect_tool_calls
from codur.tools.executor import ToolExecutor
from codur.tools.registry import SideEffect, ToolSpec, to_langchain_tools

FINISH_TOOLS = {"done", "clarify"}  # clarify: the question ends the turn; the run reports it
MAX_REPEATS = 2  # refused repeats in a row that end the turn
REPEAT_NOTE = ("You already called {name} with these arguments and nothing has changed since; "
               "its result is above. Do not repeat it: make an edit, run a different tool, or finish.")
#: The answer to a first ``done`` before any edit in a turn that may edit: a small model often
#: checks the syntax, finds nothing wrong and calls done with the tests still failing (bench/real,
#: 2026-11-26: a whole turn of 72 s spent so). The second ``done`` ends the turn.
NO_EDIT_NOTE = ("You called done without changing any file, and the task is not done: the failing tests above "
                "still fail. Fix the code with an edit tool now (one ```json tool call). If the code really needs "
                "no change, call done again and say why.")


@dataclass
class AgentRun:
    """One tool loop.

    Attributes:
        messages: the whole trajectory (system, user, replies, tool results).
        final_text: the agent's last words (done's summary, or the last reply's text).
        stop_reason: "no_tool_call", "done", "max_iterations", "repeating" or "stopped: <reason>".
        llm_calls / tokens: model usage; tool_calls: calls executed; edits: FILE_MUTATION calls that succeeded.
        parsed_from_content: tool calls recovered from the reply text (not native).
        repeats: identical calls refused by the repeat guard; repeats_in_a_row: since the last call run.
        nudged: a first ``done`` before any edit was answered with :data:`NO_EDIT_NOTE`.
        seen: (tool, arguments, edits so far) of the calls run: the repeat guard's memory.
    """

    messages: list[BaseMessage] = field(default_factory=list)
    final_text: str = ""
    stop_reason: str = ""
    llm_calls: int = 0
    tokens: int = 0
    tool_calls: int = 0
    edits: int = 0
    parsed_from_content: int = 0
    repeats: int = 0
    repeats_in_a_row: int = 0
    nudged: bool = False
    seen: set[tuple[str, str, int]] = field(default_factory=set, repr=False)


def execute_tool_calls(tools: ToolExecutor, calls: Sequence[dict], run: AgentRun | None = None, *,
                       mutating: Collection[str] = ()) -> bool:
    """Run one reply's tool calls through ``tools`` (the one :class:`ToolExecutor`), in order.

    Args:
        tools: the executor (its policy, allowed tools and journal apply).
        calls: LangChain tool calls ``{"name", "args", "id"}``, e.g. :func:`detect_tool_calls`'s.
        run: the loop's record; each ToolMessage is appended to ``run.messages`` and the counters
            (tool_calls, edits, repeats) and the repeat guard are updated. None: a fresh one.
        mutating: tool names whose success counts as an edit (FILE_MUTATION tools).

    Returns:
        True when a finishing tool (``done``, ``clarify``) ran; its summary or question is then
        ``run.final_text``. A call identical to one already run, with no edit since, is refused
        with :data:`REPEAT_NOTE`. Tool failures are error results, never exceptions.
    """
    run = run if run is not None else AgentRun()
    finished = False
    for call in calls:
        key = (call["name"], json.dumps(call["args"], sort_keys=True, default=str), run.edits)
        if key in run.seen and call["name"] not in FINISH_TOOLS:
            run.messages.append(ToolMessage(REPEAT_NOTE.format(name=call["name"]),
                                            tool_call_id=call["id"], name=call["name"], status="error"))
            run.repeats += 1
            run.repeats_in_a_row += 1
            continue
        run.seen.add(key)
        run.repeats_in_a_row = 0
        result = tools.execute(call["name"], call["args"], call["id"])
        run.tool_calls += 1
        run.messages.append(result.to_message())
        if result.ok and call["name"] in mutating:
            run.edits += 1
        if call["name"] in FINISH_TOOLS:
            finished = True
            run.final_text = str(call["args"].get("summary") or call["args"].get("question") or result.output)
    return finished


def _text(message: AIMessage) -> str:
    c = message.content
    return c if isinstance(c, str) else " ".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in c)


class AgentExecutor:
    """Runs the tool loop of one agent.

    Args:
        model: a LangChain chat model (``bind_tools`` is called with ``tools``), or the
            role's chain of them, first choice first.
        tools: the ToolExecutor, limited to the tools the prompt lists.
        specs: the ToolSpecs listed in the system prompt (the same ones are bound).
        max_iterations: model calls at most (default 5).
        should_stop: returns a reason string to stop before the next model call, or None.
        policy: the model-call policy (:mod:`codur.llm.policy`): each call retried, then the
            next model of the chain; None: one call to the first model, no retry.
        role: the role named in the policy's fallback event.
    """

    def __init__(self, model: BaseChatModel | Sequence[BaseChatModel], tools: ToolExecutor,
                 specs: Sequence[ToolSpec], *, max_iterations: int = 5,
                 should_stop: Callable[[], str | None] | None = None, policy: CallPolicy | None = None,
                 role: str = "actor") -> None:
        self.specs = list(specs)
        self.names = {s.name for s in self.specs}
        self.tools = tools.with_allowed(self.names)
        # The same selection the prompt lists; models that answer tool calls in their
        # content (the embedded one) are not sent the schemas: ~1,200 prompt tokens saved.
        # Bound before the policy wraps them: a binding made after would drop the retries.
        models = [model] if isinstance(model, BaseChatModel) else list(model)
        bound = [m.bind_tools(to_langchain_tools(self.specs)) if self.specs and wants_native_tools(m) else m
                 for m in models]
        self.model: Runnable = with_policy(bound, policy, role=role) if policy is not None else bound[0]
        self.max_iterations = max_iterations
        self.should_stop = should_stop
        self.mutating = {s.name for s in self.specs if SideEffect.FILE_MUTATION in s.side_effects}

    def run(self, messages: list[BaseMessage]) -> AgentRun:
        """Run the loop from ``messages`` (system + user); returns the trajectory and usage."""
        run = AgentRun(messages=list(messages))
        for _ in range(self.max_iterations):
            if self.should_stop and (reason := self.should_stop()):
                run.stop_reason = f"stopped: {reason}"
                return run
            reply = self.model.invoke(run.messages)
            run.llm_calls += 1
            run.tokens += (reply.usage_metadata or {}).get("total_tokens", 0)
            detection = detect_tool_calls(reply, self.names)
            if detection.source == "content":
                run.parsed_from_content += len(detection.calls)
                reply = AIMessage(content=reply.content, tool_calls=detection.calls,
                                  usage_metadata=reply.usage_metadata, id=reply.id)
            run.messages.append(reply)
            emit(AgentReply(iteration=run.llm_calls, text=_text(reply)[:400],
                            tool_calls=[c["name"] for c in detection.calls], source=detection.source,
                            errors=detection.errors))
            if not detection.calls and not detection.errors:
                run.final_text = _text(reply).strip()
                run.stop_reason = "no_tool_call"
                return run
            finished = execute_tool_calls(self.tools, detection.calls, run, mutating=self.mutating)
            if detection.errors:
                run.messages.append(HumanMessage(
                    "Your tool call could not be run:\n- " + "\n- ".join(detection.errors)
                    + '\nReply with one ```json block: {"name": ..., "arguments": {...}}'))
            if finished and self._nudge(run, detection.calls):
                continue
            if finished:
                run.stop_reason = "done"
                return run
            if run.repeats_in_a_row >= MAX_REPEATS:
                run.stop_reason = "repeating"  # the model is looping: end the turn, let review decide
                return run
        run.stop_reason = "max_iterations"
        last = next((m for m in reversed(run.messages) if isinstance(m, AIMessage)), None)
        run.final_text = _text(last).strip() if last else ""
        return run


    def _nudge(self, run: AgentRun, calls: Sequence[dict]) -> bool:
        """Answer a first ``done`` of a turn that may edit (edit tools bound) but edited nothing
        with :data:`NO_EDIT_NOTE` instead of ending the turn; True when it did. Once per turn: the
        second ``done`` ends it (a task may truly need no change)."""
        if run.nudged or run.edits or not self.mutating or not any(c["name"] == "done" for c in calls):
            return False
        run.nudged = True
        run.messages.append(HumanMessage(NO_EDIT_NOTE))
        emit(AgentNudge(reason="done before any edit"))
        return True


class LLMAgent:
    """An LLM agent behind the AgentPort protocol: a system prompt and a tool loop.

    Args:
        name: the agent's name (e.g. "coder").
        system_prompt: built from the registry (see codur.graph.prompts).
        loop: its :class:`AgentExecutor` (its model or chain of them, the tools listed in the
            prompt, the run's ToolExecutor, the iteration cap, the limits check and the
            model-call policy).
    """

    def __init__(self, name: str, system_prompt: str, loop: AgentExecutor) -> None:
        self.name = name
        self.system_prompt = system_prompt
        self.loop = loop
        self.last_run: AgentRun | None = None

    def run(self, plan: AgentTask) -> AgentResult:
        t0 = time.monotonic()
        messages: list[BaseMessage] = [SystemMessage(self.system_prompt), HumanMessage(plan.prompt)]
        self.last_run = None  # a turn whose model call raises has no run: never the last turn's
        run = self.loop.run(messages)  # model/server errors propagate: the AgentRunner retries them
        self.last_run = run
        # A loop stopped by the run's limits is not an agent failure: the graph's budget
        # check ends the run; retrying it would only spend more.
        return AgentResult(
            success=True, output=run.final_text or f"(agent ended: {run.stop_reason})", exit_code=0,
            duration_s=time.monotonic() - t0, llm_calls=run.llm_calls, tokens=run.tokens,
            tool_calls=run.tool_calls, messages=tuple(run.messages[1:]),
        )
