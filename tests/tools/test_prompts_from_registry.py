"""A newly registered tool reaches exactly the agents whose task types it serves: in the
system prompt text and in the list bound to the model (the same selection)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from codur.graph.prompts import build_system_prompt
from codur.tools import REGISTRY, SideEffect, TaskType, ToolContext, tool


@pytest.fixture
def new_tools() -> Iterator[None]:
    @tool(scenarios=[TaskType.CODE_FIX, TaskType.REFACTOR], side_effects=[SideEffect.FILE_MUTATION])
    def rename_symbol(ctx: ToolContext, old: str, new: str) -> str:
        """Rename a symbol everywhere in the repo."""
        return f"{old} -> {new}"

    @tool(scenarios=[TaskType.EXPLANATION, TaskType.CODE_FIX])
    def call_graph(ctx: ToolContext, symbol: str) -> str:
        """Show who calls a function."""
        return symbol

    yield
    REGISTRY.remove("rename_symbol")
    REGISTRY.remove("call_graph")


def _listed(prompt: str) -> list[str]:
    return re.findall(r"^- (\w+)\(", prompt, flags=re.MULTILINE)


def test_new_tool_reaches_the_right_prompts_only(new_tools: None) -> None:
    rename_line = "- rename_symbol(old: str, new: str): Rename a symbol everywhere in the repo."
    graph_line = "- call_graph(symbol: str): Show who calls a function."
    expected = {
        TaskType.CODE_FIX: {"rename_symbol", "call_graph"},
        TaskType.REFACTOR: {"rename_symbol"},
        TaskType.EXPLANATION: {"call_graph"},
        TaskType.CODE_ANALYSIS: set(),  # read-only task: writers are left out, call_graph is not annotated for it
        TaskType.CODE_GENERATION: set(),
        TaskType.DOCUMENTATION: set(),
    }
    for task_type, wanted in expected.items():
        prompt, specs = build_system_prompt("actor", task_type)
        listed = _listed(prompt)
        assert listed == [s.name for s in specs], f"{task_type}: the prompt and the bound tools differ"
        assert set(listed) & {"rename_symbol", "call_graph"} == wanted, task_type
        assert (rename_line in prompt) == ("rename_symbol" in wanted)
        assert (graph_line in prompt) == ("call_graph" in wanted)
    for role in ("planner", "critic"):
        prompt, specs = build_system_prompt(role, TaskType.CODE_FIX)
        assert specs == [] and "rename_symbol" not in prompt


def test_removed_tool_leaves_every_prompt(new_tools: None) -> None:
    REGISTRY.remove("rename_symbol")
    for task_type in TaskType:
        prompt, specs = build_system_prompt("actor", task_type)
        assert "rename_symbol" not in prompt and "rename_symbol" not in {s.name for s in specs}
