"""codur's tools: the registry, the ToolExecutor, tool-call detection and the tool families.

Importing this package registers every built-in tool in :data:`REGISTRY`.
"""

from codur.tools import analysis, files, finish, git, python, rlm, search  # noqa: F401  (registration)
from codur.tools.context import ToolContext, ToolError
from codur.tools.detection import Detection, detect_tool_calls
from codur.tools.executor import ToolExecutor, ToolSettings
from codur.tools.registry import (
    REGISTRY,
    SideEffect,
    TaskType,
    ToolRegistry,
    ToolSpec,
    list_tools_for_tasks,
    render_tool_block,
    to_langchain_tools,
    tool,
)
from codur.tools.result import ToolResult

__all__ = [
    "REGISTRY", "Detection", "SideEffect", "TaskType", "ToolContext", "ToolError", "ToolExecutor",
    "ToolRegistry", "ToolResult", "ToolSettings", "ToolSpec", "detect_tool_calls", "list_tools_for_tasks",
    "render_tool_block", "to_langchain_tools", "tool",
]
