"""Python tools: run the tests."""

from __future__ import annotations

from codur.tools.context import ToolContext
from codur.tools.registry import SideEffect, TaskType, tool
from codur.tools.testing import run_tests


@tool(scenarios=[TaskType.CODE_FIX, TaskType.CODE_GENERATION, TaskType.CODE_VALIDATION,
                 TaskType.REFACTOR, TaskType.RESULT_VERIFICATION],
      side_effects=[SideEffect.CODE_EXECUTION])
def run_pytest(ctx: ToolContext, selection: list[str] | None = None) -> str:
    """Run the tests with pytest (optionally only the given files or test ids) and report passed/failed tests with tracebacks."""
    return run_tests(ctx, selection).render()
