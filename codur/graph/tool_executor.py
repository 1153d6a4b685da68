"""The tool-call names the execution module's specification gives, over the tool loop's own code.

- :func:`execute_tool_calls`: runs one reply's tool calls through the run's
  :class:`codur.tools.executor.ToolExecutor`, with the loop's repeat guard
  (:func:`codur.graph.execution.agent_executor.execute_tool_calls`, which the loop calls);
- ``_TOOL_DETECTOR``: finds the tool calls in a model reply — native, JSON in the content,
  or plain text (``read_file(path="a.py")``; ``Action: read_file`` with an ``Action Input:``
  JSON) when the name is a bound tool and the arguments parse
  (:func:`codur.tools.detection.detect_tool_calls`, the loop's one parser).
"""

from __future__ import annotations

from codur.graph.execution.agent_executor import execute_tool_calls
from codur.tools.detection import detect_tool_calls

_TOOL_DETECTOR = detect_tool_calls

__all__ = ["_TOOL_DETECTOR", "execute_tool_calls"]
