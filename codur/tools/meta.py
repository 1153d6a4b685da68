"""Meta tools: end the agent's loop with a summary, or ask the user a question.

They change nothing; the agent loop treats a ``done`` call as the end of its turn
and a ``clarify`` call as a question for the user.
"""

from __future__ import annotations

from codur.tools.context import ToolContext
from codur.tools.registry import TaskType, tool


@tool(scenarios=tuple(TaskType))
def done(ctx: ToolContext, summary: str) -> str:
    """Finish the task; summary says what you did or found."""
    return summary


@tool(scenarios=tuple(TaskType))
def clarify(ctx: ToolContext, question: str) -> str:
    """Ask the user one question when the task is unclear."""
    return question
