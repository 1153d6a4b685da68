"""Ports between the graph and the agents it runs.

An *agent* is anything behind the :class:`AgentPort` protocol: the LLM tool loop
(:class:`codur.graph.execution.agent_executor.AgentExecutor` wrapped as a port),
or a registered Python class such as the command-line agent in
``codur.agents.cli_agent``. The :class:`codur.llm.agent_runner.Executor` drives a port
with retries; the graph's ``execute`` node drives the Executor.

The names are the Executor specification's (v0.6: ``Executor``, ``IterationPlan``,
``ExecutionResult``, ``AgentPort``, ``QuotaState``); ``AgentTask`` and ``AgentResult`` are the
same classes under the names codur's own modules used before, kept as internal aliases.

Data crossing the port is frozen: an agent never mutates the plan it was given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


class QuotaStatus(StrEnum):
    """What the model provider or agent said about our quota on the last call."""

    OK = "ok"
    RATE_LIMITED = "rate_limited"  # 429 with or without Retry-After: wait, then try later
    QUOTA_EXHAUSTED = "quota_exhausted"  # billing/insufficient quota: retrying cannot help


@dataclass(frozen=True)
class QuotaState:
    """Quota information filled by an adapter.

    Attributes:
        status: the :class:`QuotaStatus`.
        retry_after_seconds: seconds the provider asked us to wait, or None.
        message: the provider's own words, for the user.
    """

    status: QuotaStatus = QuotaStatus.OK
    retry_after_seconds: float | None = None
    message: str = ""


@dataclass(frozen=True)
class IterationPlan:
    """What an agent is asked to do in one Act step.

    Attributes:
        prompt: the full task prompt for the agent (task, observations, failure context).
        repo_root: absolute path of the repository the agent works in.
        agent: name of the agent chosen by the plan node.
        task_type: the TaskType value (a string) chosen by the planner.
        run_id: the run this step belongs to.
    """

    prompt: str
    repo_root: Path
    agent: str = "coder"
    task_type: str = "code_fix"
    run_id: str = ""


@dataclass(frozen=True)
class ExecutionResult:
    """The outcome of one agent invocation (after the Executor's retries).

    Attributes:
        success: the agent finished without an error (not: the task is solved).
        output: the agent's final text (summary, or error text when not success).
        exit_code: 0 on success; a process exit code for command-line agents;
            -1 means the command was not found (never retried); 1 generic failure.
        dry_run: True when nothing was invoked.
        attempts: how many times the agent was invoked (0 on dry run).
        quota_state: quota information from the last attempt.
        duration_s: wall time of all attempts, seconds.
        llm_calls: number of model calls made.
        tokens: total tokens (prompt + completion) used.
        tool_calls: number of tool calls executed.
        messages: the agent's transcript as LangChain messages (may be empty).
    """

    success: bool
    output: str = ""
    exit_code: int = 0
    dry_run: bool = False
    attempts: int = 1
    quota_state: QuotaState = field(default_factory=QuotaState)
    duration_s: float = 0.0
    llm_calls: int = 0
    tokens: int = 0
    tool_calls: int = 0
    messages: tuple[Any, ...] = ()


AgentTask = IterationPlan  # internal alias: codur's callers' earlier name
AgentResult = ExecutionResult  # internal alias: codur's callers' earlier name


@runtime_checkable
class AgentPort(Protocol):
    """An agent the Executor can run. Implementations must not raise for ordinary
    failures: they return ``ExecutionResult(success=False, ...)``. They may raise
    KeyboardInterrupt, which the Executor re-raises at once."""

    name: str

    def run(self, plan: IterationPlan) -> ExecutionResult:
        """Run the agent once on ``plan`` and report what happened."""
        ...
