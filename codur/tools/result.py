"""What one tool call returns (:class:`ToolResult`, the model reads it as a ToolMessage) and how
its output is capped (:func:`cap_output`). Calls run through
:class:`codur.tools.executor.ToolExecutor`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.messages import ToolMessage


@dataclass(frozen=True)
class ToolResult:
    """One executed tool call.

    Attributes:
        name: tool name.
        call_id: the tool call id from the model (or generated).
        ok: False when the tool raised, was refused or got bad arguments.
        output: what the model reads (capped).
        duration_s: seconds spent.
        args: the arguments as given.
    """

    name: str
    call_id: str
    ok: bool
    output: str
    duration_s: float
    args: dict[str, Any]

    def to_message(self) -> ToolMessage:
        """The result as the model reads it: a ToolMessage answering ``call_id`` (status ``error`` when not ok)."""
        return ToolMessage(content=self.output, tool_call_id=self.call_id, name=self.name,
                           status="success" if self.ok else "error")


def cap_output(text: str, limit: int) -> str:
    """Keep the head and tail of ``text`` within ``limit`` characters, with a visible note."""
    if len(text) <= limit:
        return text
    head = int(limit * 0.6)
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n…[truncated {cut} characters]…\n{text[-tail:]}"
