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
from enum import StrEnum
from typing import (
    Annotated,
    Any,
    Required,  # pydantic reads only these before Python 3.12
)

from langchain_core.messages import AnyMessage, BaseMessage
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from codur.core.fields import FieldAccess
from codur.graph.verification.verdict import Evidence, Verdict


class Record(FieldAccess, BaseModel):
    """A declared state value: nodes write new ones (``model_copy(update=...)``), never mutate.

    Its fields also read as a mapping (``outcome["status"]``, ``outcome.get("summary")``:
    :class:`codur.core.fields.FieldAccess`), read-only.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")


class TestRun(Record):
    """observe's run of the test suite.

    Attributes:
        summary: e.g. "2 failed, 5 passed"; exit_code: pytest's (None: timed out).
        failed: failing test ids (at most 1,000); passed_count: tests that passed.
        report: failures and tracebacks, cut for a prompt.
        command: the test command, as said to the user (``.venv/bin/python -m pytest (.venv)``).
        setup_problem: why the suite could not even start ("" when it ran).
        selection: the tests observe ran when the user named some (``--tests``; []: the whole suite).
        targets: the failing tests the task names ([]: every failing test is the task's); the
            other failing tests failed before any change and are not held against the run.
        outside_suite: tests the task named that the project's own test command does not
            collect (its configuration excludes them): never run, said in the summary.
        duration_s: the run's wall time, seconds.
    """

    summary: str = ""
    exit_code: int | None = None
    failed: list[str] = Field(default_factory=list)
    passed_count: int = 0
    report: str = ""
    command: str = ""
    setup_problem: str = ""
    selection: list[str] = Field(default_factory=list)
    targets: list[str] = Field(default_factory=list)
    outside_suite: list[str] = Field(default_factory=list)
    duration_s: float = 0.0


class Observation(Record):
    """What observe found, plus the suspicious lines localization adds later.

    Attributes:
        files: Python files (repo-relative, at most MAX_FILES); file_count: all of them.
        has_tests: the repo has pytest-style test files; tests: the suite's run, when it has.
        sources: numbered source of the modules the failing tests import (path -> text).
        suspicious: top suspicious lines ({path, line, score, text}) for the agent's prompt.
        functions: the most suspicious functions across files ({path, function, start, end,
            score}: :func:`codur.patch.ranking.summary`) for the agent's prompt.
        changed_tests: test files added or changed in the working tree against git HEAD when
            the run started (:func:`codur.graph.task_scope.changed_test_files`).
    """

    files: list[str] = Field(default_factory=list)
    file_count: int = 0
    has_tests: bool = False
    tests: TestRun | None = None
    sources: dict[str, str] = Field(default_factory=dict)
    suspicious: list[dict[str, Any]] | None = None
    functions: list[dict[str, Any]] | None = None
    changed_tests: list[str] = Field(default_factory=list)


class PlanInfo(Record):
    """The plan node's details.

    Attributes:
        source: "fast_path", "planner" or "fallback" (the planner failed: model_error says why).
        steps: the planner's steps (at most 6); agent: the agent chosen.
    """

    source: str = "fast_path"
    steps: list[str] = Field(default_factory=list)
    agent: str | None = None
    model_error: str | None = None


class TaskScope(Record):
    """Which failing tests are about the task, decided once by the first plan
    (:mod:`codur.graph.planning.scope`); routing, scope and verification read it.

    Attributes:
        plain_fix: the task says "make the failing tests pass" (or "fix the failing test", "fix the bug").
        related: the tests failing at the start that are about the task (the fixers work on them,
            and their passing is the task's proof).
        unrelated: the other tests failing at the start: never fixed for the task, never held against it.
        decided_by: "rules" (:func:`codur.graph.planning.task.relate`), "planner" (the planner
            model's short call), "no_model" (the rules could not tell and no model may decide:
            the tests in doubt are unrelated) or "planner_failed" (the call failed: the same).
        why: one line, for the trace and the summary.
    """

    plain_fix: bool = False
    related: list[str] = Field(default_factory=list)
    unrelated: list[str] = Field(default_factory=list)
    decided_by: str = "rules"
    why: str = ""


class TurnStatus(StrEnum):
    """How an agent's turn ended (:attr:`AgentOutcome.status` of an agent; the patch pipeline's
    is a :class:`codur.core.contracts.PatchStatus` word)."""

    DELEGATED = "delegated"  # handed to the agent, not run yet
    COMPLETED = "completed"  # the agent finished without an error (not: the task is solved)
    FAILED = "failed"  # the turn failed (an outage, an agent error, after the retries)


class AgentOutcome(Record):
    """The last Act step: an agent's turn (execute), the patch pipeline's result (patch), or a
    turn just delegated.

    Attributes:
        agent: the agent's name ("patch" for the pipeline); status: a :class:`TurnStatus` word,
            or the pipeline's :class:`codur.core.contracts.PatchStatus` word (patched, not_found, error, ...).
        summary: the agent's last words (or the patch's label); attempts, exit_code, quota,
            tool_calls, dry_run: the AgentRunner's report; edits: files this step changed.
        stop_reason: how the agent's loop ended (done, no_tool_call, max_iterations, repeating,
            stopped: <limit>); '' when the agent does not say.
        elapsed_s: how long the step took, seconds (an agent's turn or the patch pipeline).
        source, provenance, tried, files, reverted: the patch pipeline's.
    """

    agent: str
    status: str
    summary: str = ""
    attempts: int = 0
    dry_run: bool = False
    exit_code: int = 0
    quota: str = "ok"
    tool_calls: int = 0
    edits: int = 0
    stop_reason: str = ""
    source: str = ""
    provenance: dict[str, Any] = Field(default_factory=dict)
    tried: dict[str, int] = Field(default_factory=dict)
    elapsed_s: float = 0.0
    files: list[str] = Field(default_factory=list)
    reverted: list[str] = Field(default_factory=list)


class ToolCallRecord(Record):
    """One tool call of an agent's turn and its result, as the state keeps it.

    Attributes:
        name: the tool; args: its arguments (string values cut to 200 characters);
        call_id: the model's tool call id; ok: the tool succeeded (the ToolMessage's status);
        output: the start of what the model read back (at most :data:`MAX_MESSAGE_CHARS`).
    """

    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    call_id: str = ""
    ok: bool = True
    output: str = ""


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


#: The record classes kept in state (the checkpointer's serializer is told it may load them).
RECORDS = (TestRun, Observation, PlanInfo, TaskScope, AgentOutcome, Verdict, ToolCallRecord)


def state_serializer() -> Any:
    """LangGraph's serializer for checkpoints, allowed to load the state's record classes."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    return JsonPlusSerializer(allowed_msgpack_modules=[(c.__module__, c.__name__) for c in (*RECORDS, Evidence)])


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
        status / reason: "running" until a terminal status is written.
        observation: what observe found (:class:`Observation`).
        agent_outcome: the last Act step (:class:`AgentOutcome`).
        verification_details: the last verdict (:class:`codur.graph.verification.verdict.Verdict`:
            passed, reasoning, suggestions, evidence).
        Read them with :func:`observation_of`, :func:`plan_of`, :func:`outcome_of`, :func:`verdict_of`.
        route: the next node plan or review chose (:class:`codur.graph.routing.Route`: delegate,
            patch, plan or done).
        feedback: failure context handed to the next Act step.
        retry: the next turn's strategy when it is not a plain retry: "fresh_retry" (review, after a
            turn without progress: its edits reverted, the prompt told what was tried).
        tried: the diff of the turns a fresh retry reverted (delegate writes it; the prompt shows it).
        turns_without_progress: agent turns in a row, after a failed patch pipeline, that made none
            of the tests failing at the start pass (review counts them; the give-up rule reads them).
        patch_attempted: the candidate-patch pipeline (the patch node) already ran.
        patch: what it found: status, source, provenance, tried per source, phases (seconds),
            near_miss (the best near miss: label, fixed, failing, diff) or None, end (why a
            search that found nothing stopped: :meth:`codur.patch.contracts.SearchEnd.as_dict`) or None.
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
    status: str
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
    patch: dict[str, Any]
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
    status: str
    reason: str
    turn: int
    session: list[str]


def initial_state(task: str, repo: str, run_id: str, *, session: list[str] | None = None) -> CodurState:
    """The input of a run; ``session``: the session's earlier runs, rendered."""
    return CodurState(task=task, repo=repo, run_id=run_id, status="running", reason="", turn=0,
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
