"""The tool-loop agent's events (codur/graph/execution/, codur/graph/coding_agent.py)."""

from __future__ import annotations

from dataclasses import dataclass

from codur.core.events.base import Event


@dataclass(frozen=True, kw_only=True)
class AgentPrompt(Event, kind="agent.prompt"):
    """A dry run: the prompts the agent would get."""

    agent: str
    system: str
    prompt: str


@dataclass(frozen=True, kw_only=True)
class AgentReply(Event, kind="agent.reply"):
    """One model reply of the agent's loop: its iteration, text (400 characters), the tool calls found and where
    (``source``), parse errors."""

    iteration: int
    text: str
    tool_calls: list[str]
    source: str
    errors: list[str]


@dataclass(frozen=True, kw_only=True)
class AgentNudge(Event, kind="agent.nudge"):
    """The agent said it was done before any edit and was asked to go on."""

    reason: str


@dataclass(frozen=True, kw_only=True)
class AgentOutcomeEvent(Event, kind="agent.outcome"):
    """How an agent's turn ended (the figures of :class:`codur.graph.state.AgentOutcome`)."""

    agent: str
    status: str
    attempts: int
    exit_code: int | None
    quota: str
    tool_calls: int
    edits: int


@dataclass(frozen=True, kw_only=True)
class AgentRetry(Event, kind="agent.retry"):
    """A fresh retry: its strategy, the turn it starts and the files reverted before it."""

    strategy: str
    turn: int
    reverted: list[str]


@dataclass(frozen=True, kw_only=True)
class AgentLoadFailed(Event, kind="agent.load_failed"):
    """A coding agent's definition could not be loaded."""

    agent: str
    error: str
