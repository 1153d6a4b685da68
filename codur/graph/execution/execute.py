"""execute (engine state Act): run the chosen agent through the AgentRunner.

An LLM agent's model calls carry the model-call policy (:mod:`codur.llm.policy`: each
call retried with backoff, then the next profile of its chain), so the AgentRunner does not
run its whole turn again; a command-line or Python agent is retried by the AgentRunner
(``max_retries``, backoff, never on exit code -1 or a 429).
"""

from __future__ import annotations

import time

from codur.core.events import emit
from codur.core.events.agent import AgentOutcomeEvent, AgentPrompt
from codur.graph.coding_agent import build_agent, execution_plan, system_prompt
from codur.graph.context import Run
from codur.graph.nodes import node
from codur.graph.records import AgentOutcome, TurnStatus
from codur.graph.state import CodurState, state_messages, tool_call_records
from codur.llm.agent_runner import AgentRunner


@node("execute")
def execute_node(state: CodurState, ctx: Run) -> dict:
    """Run the agent; report its outcome and usage. A dry run builds no agent (so no model
    starts): the ``agent.prompt`` event carries the prompts it would send.

    Returns:
        ``{"agent_outcome": AgentOutcome, "llm_calls": int, "messages": [...], "tool_calls": [...]}``:
        the turn's outcome, its model calls (the run's usage ledger, before and after), and its
        transcript (no system prompt) and tool calls with results, cut for the state
        (:func:`codur.graph.state.state_messages`, :func:`~codur.graph.state.tool_call_records`).
    """
    name = state.get("agent") or ctx.config.default_agent
    plan = execution_plan(state, ctx, name)
    if ctx.config.dry_run:
        emit(AgentPrompt(agent=name, system=system_prompt(state, ctx, name), prompt=plan.prompt))
        return {"agent_outcome": AgentOutcome(agent=name, status=TurnStatus.COMPLETED.value, summary="(dry run)",
                                              dry_run=True), "llm_calls": 0}
    agent, policy_inside = build_agent(state, ctx, name)
    journal = ctx.tools.journal
    before = journal.snapshot()
    deadline = ctx.limits.started_at + ctx.limits.timeout_s if ctx.limits is not None else None
    executor = AgentRunner(agent, max_retries=0 if policy_inside else ctx.config.max_retries,
                        base_delay=ctx.config.retry_base_delay_s, deadline=deadline)
    started = time.monotonic()
    calls_before = ctx.models.ledger.usage.calls
    result = executor.execute(plan, dry_run=ctx.config.dry_run)
    llm_calls = ctx.models.ledger.usage.calls - calls_before
    # how the agent's loop ended (done, no_tool_call, max_iterations, repeating, stopped: ...);
    # "" for an agent that does not say (a command-line agent); "failed" when the turn itself
    # failed (a model outage: the output is the error, never an answer). A question's answer
    # counts only when the loop ended with one.
    last_run = getattr(agent, "last_run", None)
    ended = getattr(last_run, "stop_reason", "") if result.attempts else ""
    if result.attempts and not result.success:
        ended = "failed"
    outcome = AgentOutcome(
        agent=name, status=(TurnStatus.COMPLETED if result.success else TurnStatus.FAILED).value,
        summary=result.output[:2000],
        attempts=result.attempts, dry_run=result.dry_run, exit_code=result.exit_code,
        quota=result.quota_state.status.value, tool_calls=result.tool_calls,
        # files this turn changed, from the change journal: whoever wrote them (tools or a
        # command-line agent), and an edit undone in the same turn does not count
        edits=len(journal.changed_since(before)),
        stop_reason=ended, elapsed_s=round(time.monotonic() - started, 3),
    )
    emit(AgentOutcomeEvent(**outcome.model_dump(include={"agent", "status", "attempts", "quota", "exit_code",
                                                           "tool_calls", "edits"})))
    # the transcript is state only bounded (the latest messages, each cut): the whole of it is in
    # the trace (agent.reply, tool.call events)
    return {"agent_outcome": outcome, "llm_calls": llm_calls, "messages": state_messages(result.messages),
            "tool_calls": tool_call_records(result.messages)}
