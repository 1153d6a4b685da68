"""The tools that finish an agent's turn: ``done`` (with a summary) and ``clarify`` (a question
for the user).

They change nothing; the tool loop (:data:`codur.graph.execution.agent_executor.FINISH_TOOLS`)
ends the turn on either, and the run reports the summary or the question.
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
