"""The graph state: every key declared once, with its reducer.

Nodes return partial updates and never mutate the state they are given. Keys
without a reducer take the last value written; the node history, failure signatures and
``llm_calls`` add up (operator.add); the agents' message history and their tool calls with
results append too, bounded (:func:`bounded`: the latest :data:`MAX_STATE_MESSAGES`, each
text cut to :data:`MAX_MESSAGE_CHARS`), so Studio shows the conversation and a checkpoint
stays small. Model usage otherwise is the run's usage ledger's, and the whole transcripts
are in the trace.
"""

from __future__ import annotations

import operator
from typing import (
    Annotated,
    Any,
    Required,  # pydantic reads only these before Python 3.12
)

from langchain_core.messages import AnyMessage, BaseMessage
from pydantic import BaseModel
from typing_extensions import TypedDict

from codur.core.contracts import PatchStatus, RunStatus
from codur.core.ports import QuotaStatus
from codur.graph.records import (
    AgentOutcome,
    Observation,
    PlanInfo,
    TaskScope,
    TestObservation,
    ToolCallRecord,
    TurnStatus,
)
from codur.graph.verification.verdict import Evidence, Verdict
from codur.patch.contracts import NearMiss, PatchOutcome, SearchEnd
from codur.validate.search import SearchStop

#: Messages (and tool calls) the state keeps, the latest; and each text's length, characters.
MAX_STATE_MESSAGES = 40
MAX_MESSAGE_CHARS = 2000


def bounded(left: list | None, right: list | None) -> list:
    """The reducer of ``messages`` and ``tool_calls``: ``right`` appended to ``left``, only the
    latest :data:`MAX_STATE_MESSAGES` kept (a run of 30 turns keeps its last 40 messages, not all)."""
    return [*(left or []), *(right or [])][-MAX_STATE_MESSAGES:]


def _cut(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS] + f"…[{len(text)} characters]"


def state_messages(messages: list[BaseMessage] | tuple[BaseMessage, ...]) -> list[BaseMessage]:
    """An agent's transcript as the state keeps it: the latest :data:`MAX_STATE_MESSAGES`
    messages (the system prompt left out), each text cut to :data:`MAX_MESSAGE_CHARS`."""
    kept = [m for m in messages if m.type != "system"][-MAX_STATE_MESSAGES:]
    return [m.model_copy(update={"content": _cut(m.content)}) if isinstance(m.content, str) else m for m in kept]


def tool_call_records(messages: list[BaseMessage] | tuple[BaseMessage, ...]) -> list[ToolCallRecord]:
    """The tool calls of a transcript, each with its result (the ToolMessage answering its id)."""
    results = {m.tool_call_id: m for m in messages if m.type == "tool"}  # type: ignore[attr-defined]
    out = []
    for message in messages:
        for call in getattr(message, "tool_calls", None) or []:
            answer = results.get(call.get("id") or "")
            args = {k: (_cut(v)[:200] if isinstance(v, str) else v) for k, v in (call.get("args") or {}).items()}
            out.append(ToolCallRecord(name=call["name"], args=args, call_id=call.get("id") or "",
                                      ok=answer is None or getattr(answer, "status", "success") != "error",
                                      output=_cut(str(answer.content)) if answer is not None else ""))
    return out[-MAX_STATE_MESSAGES:]


#: The record classes kept in state, and the outcome enums (the checkpointer's serializer is told it may load them).
RECORDS = (TestObservation, Observation, PlanInfo, TaskScope, AgentOutcome, Verdict, ToolCallRecord, PatchOutcome,
           NearMiss, SearchEnd)
OUTCOME_ENUMS = (RunStatus, TurnStatus, PatchStatus, QuotaStatus, SearchStop)


def state_serializer() -> Any:
    """LangGraph's serializer for checkpoints, allowed to load the state's record classes
    (:data:`RECORDS`: the patch search's :class:`PatchOutcome` with its near miss and search end
    among them) and the outcome enums."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    return JsonPlusSerializer(allowed_msgpack_modules=[(c.__module__, c.__name__)
                                                     for c in (*RECORDS, *OUTCOME_ENUMS, Evidence)])


def _read(model: type[BaseModel], value: Any) -> Any:
    """A state value as its record (a dict — from Studio's input or a test — is validated)."""
    if value is None or isinstance(value, model):
        return value
    return model.model_validate(value)


def observation_of(state: CodurState) -> Observation:
    """The state's observation (an empty one before observe ran)."""
    return _read(Observation, state.get("observation")) or Observation()


def plan_of(state: CodurState) -> PlanInfo:
    """The state's plan details (empty before plan ran)."""
    return _read(PlanInfo, state.get("plan")) or PlanInfo()


def scope_of(state: CodurState) -> TaskScope | None:
    """Which failing tests are about the task, or None before the first plan decided it."""
    return _read(TaskScope, state.get("scope"))


def outcome_of(state: CodurState) -> AgentOutcome | None:
    """The last Act step's outcome, or None before the first."""
    return _read(AgentOutcome, state.get("agent_outcome"))


def patch_of(state: CodurState) -> PatchOutcome | None:
    """What the candidate-patch pipeline found (:class:`codur.patch.contracts.PatchOutcome`),
    or None before it ran."""
    return PatchOutcome.of(state.get("patch"))


def verdict_of(state: CodurState) -> Verdict | None:
    """The last verdict, or None before the first verification."""
    return _read(Verdict, state.get("verification_details"))


class CodurState(TypedDict, total=False):
    """State of one codur run.

    Keys:
        task, repo, run_id: the request (repo is an absolute path).
        task_type: the planner's TaskType value; agent: the agent it chose; plan: its details
            (:class:`PlanInfo`).
        scope: which failing tests are about the task (:class:`TaskScope`, the first plan's).
        turn: Plan→Act→Verify cycles started (incremented by delegate).
        status / reason: how the run ended (:class:`codur.core.contracts.RunStatus`), ``running``
            until a terminal status is written; the reason's words.
        observation: what observe found (:class:`Observation`).
        agent_outcome: the last Act step (:class:`AgentOutcome`).
        verification_details: the last verdict (:class:`codur.graph.verification.verdict.Verdict`:
            passed, reasoning, suggestions, evidence).
        Read them with :func:`observation_of`, :func:`plan_of`, :func:`outcome_of`, :func:`verdict_of`,
            :func:`patch_of`.
        route: the next node plan or review chose (:class:`codur.graph.routing.Route`: delegate,
            patch, plan or done).
        feedback: failure context handed to the next Act step.
        retry: the next turn's strategy when it is not a plain retry: "fresh_retry" (review, after a
            turn without progress: its edits reverted, the prompt told what was tried).
        tried: the diff of the turns a fresh retry reverted (delegate writes it; the prompt shows it).
        turns_without_progress: agent turns in a row, after a failed patch pipeline, that made none
            of the tests failing at the start pass (review counts them; the give-up rule reads them).
        patch_attempted: the candidate-patch pipeline (the patch node) already ran.
        patch: what it found (:class:`codur.patch.contracts.PatchOutcome`, read with :func:`patch_of`).
        nodes: node names in execution order (appended).
        failure_signatures: one per failed verification (appended).
        messages: the agents' message history (user prompt, replies, tool results; no system
            prompt), appended by execute, the latest :data:`MAX_STATE_MESSAGES` kept (:func:`bounded`).
        tool_calls: the agents' tool calls with their results (:class:`ToolCallRecord`), bounded alike.
        llm_calls: the agents' model calls (execute's, from the run's usage ledger), summed over turns.
        Model usage otherwise (tokens, cost, seconds) is not state: the run's usage ledger records
            every model call (codur.core.usage).
        diff, files_changed, summary: written by done: the graph's output (what Studio shows at
            the end; the engine reads the change journal and the result instead).
        stop: the figures behind a limit's reason (elapsed seconds, tokens used), from
            :class:`codur.core.budget.Stop`.
        session: earlier runs of the request's session, rendered for the prompt (session memory).
    """

    task: str
    repo: str
    run_id: str
    task_type: str
    agent: str
    plan: PlanInfo
    scope: TaskScope
    turn: int
    status: RunStatus
    reason: str
    observation: Observation
    agent_outcome: AgentOutcome
    verification_details: Verdict
    route: str
    feedback: str
    retry: str
    tried: str
    turns_without_progress: int
    patch_attempted: bool
    patch: PatchOutcome
    nodes: Annotated[list[str], operator.add]
    failure_signatures: Annotated[list[str], operator.add]
    diff: str
    files_changed: list[str]
    summary: str
    stop: dict[str, Any]
    session: list[str]
    messages: Annotated[list[AnyMessage], bounded]
    tool_calls: Annotated[list[ToolCallRecord], bounded]
    llm_calls: Annotated[int, operator.add]


class CodurInput(TypedDict, total=False):
    """The graph's input (what Studio's form and ``langgraph dev``'s schema endpoint show).

    Keys:
        task: what to do, in words, e.g. "make the failing tests pass" (required).
        repo: absolute path of the repository to work on, on the server's machine (required: a
            run without it ends ``error``, never on the server's own working directory).
        run_id, status, reason, turn, session: set by the engine (:func:`initial_state`); a
            Studio run leaves them out.
    """

    task: Required[str]
    repo: Required[str]
    run_id: str
    status: RunStatus
    reason: str
    turn: int
    session: list[str]


def initial_state(task: str, repo: str, run_id: str, *, session: list[str] | None = None) -> CodurState:
    """The input of a run; ``session``: the session's earlier runs, rendered."""
    return CodurState(task=task, repo=repo, run_id=run_id, status=RunStatus.RUNNING, reason="", turn=0,
                      session=list(session or []))


class ExecuteNodeResult(TypedDict, total=False):
    """The partial update the execution module's nodes return (its specification's name).

    Keys:
        agent_outcome: the Act step's record (:class:`AgentOutcome`).
        llm_calls: model calls the step made (a count).
        verification_details: the verification agent's verdict
            (:class:`codur.graph.verification.verdict.Verdict`: ``passed``, ``reasoning``,
            ``suggestions``, ``strategy``, ``evidence``).
        failure_signatures: the failed verdict's signature, appended to the state's.
    """

    agent_outcome: AgentOutcome
    llm_calls: int
    verification_details: Verdict
    failure_signatures: list[str]
