"""The graph state: every key declared once, with its reducer.

Nodes return partial updates and never mutate the state they are given. Keys
without a reducer take the last value written; counters add up (operator.add);
the node history and failure signatures append; messages use add_messages.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages


class CodurState(TypedDict, total=False):
    """State of one codur run.

    Keys:
        task, repo, run_id: the request (repo is an absolute path).
        task_type: the planner's TaskType value; agent: the agent it chose; plan: its details.
        turn: Plan→Act→Verify cycles started (incremented by delegate).
        status / reason: "running" until a terminal status is written.
        observation: what observe found (files, test summary, failing tests).
        agent_outcome: the last agent invocation ({"agent", "status", "summary", ...}).
        verification: the last verdict (verification_details).
        route: review's decision (done, retry, replan, repair).
        feedback: failure context handed to the next Act step.
        patch_attempted: the candidate-patch pipeline (the patch node) already ran.
        patch: what it found: status, source, provenance, tried per source, phases (seconds),
            near_miss (the best near miss: label, fixed, failing, diff) or None.
        messages: the agents' transcripts (add_messages).
        nodes: node names in execution order (appended).
        failure_signatures: one per failed verification (appended).
        llm_calls, tokens, tool_calls: usage counters (added). The cost in USD is not state:
            the run's usage meter prices every model call (codur.llm.usage).
        diff, files_changed, summary: written by done.
        stop: the figures behind a limit's reason (elapsed seconds, tokens used), from
            :class:`codur.core.budget.Stop`.
        session: earlier runs of the request's session, rendered for the prompt (session memory).
    """

    task: str
    repo: str
    run_id: str
    task_type: str
    agent: str
    plan: dict[str, Any]
    turn: int
    status: str
    reason: str
    observation: dict[str, Any]
    agent_outcome: dict[str, Any]
    verification: dict[str, Any]
    route: str
    feedback: str
    patch_attempted: bool
    patch: dict[str, Any]
    messages: Annotated[list[AnyMessage], add_messages]
    nodes: Annotated[list[str], operator.add]
    failure_signatures: Annotated[list[str], operator.add]
    llm_calls: Annotated[int, operator.add]
    tokens: Annotated[int, operator.add]
    tool_calls: Annotated[int, operator.add]
    diff: str
    files_changed: list[str]
    summary: str
    stop: dict[str, Any]
    session: list[str]


def initial_state(task: str, repo: str, run_id: str, *, session: list[str] | None = None) -> CodurState:
    """The input of a run; ``session``: the session's earlier runs, rendered."""
    return CodurState(task=task, repo=repo, run_id=run_id, status="running", reason="", turn=0,
                      session=list(session or []))
