"""The registry: annotations, selection, and one selection for both bind_tools and the prompt."""

from __future__ import annotations

import pytest

from codur.tools import (
    REGISTRY,
    SideEffect,
    TaskType,
    ToolContext,
    ToolRegistry,
    list_tools_for_tasks,
    render_tool_block,
    to_langchain_tools,
    tool,
)

ISSUE_TOOLS = {
    "list_files", "read_file", "read_files", "write_file", "replace_in_file", "apply_patch", "move_file",
    "delete_file", "grep", "find_definition", "validate_python_syntax", "run_python_file", "run_pytest",
    "discover_entry_points", "list_symbols", "git_status", "git_diff", "git_log", "done", "clarify",
}


@pytest.fixture
def reg() -> ToolRegistry:
    reg = ToolRegistry()

    @tool(scenarios=[TaskType.CODE_FIX], side_effects=[SideEffect.FILE_MUTATION], registry=reg)
    def patch_it(ctx: ToolContext, path: str, count: int = 1) -> str:
        """Patch a file.

        More text for bind_tools only.
        """
        return path

    @tool(scenarios=[TaskType.EXPLANATION, TaskType.CODE_ANALYSIS], registry=reg)
    def explain(ctx: ToolContext, topic: str) -> str:
        """Explain a topic."""
        return topic

    @tool(registry=reg)
    def helper(ctx: ToolContext) -> str:
        """An unannotated helper."""
        return ""

    return reg


def test_the_issue_tool_set_is_registered_and_annotated() -> None:
    assert set(REGISTRY.names()) >= ISSUE_TOOLS
    for spec in REGISTRY.all():
        assert spec.scenarios, f"{spec.name} has no TaskType"
    for name in ISSUE_TOOLS:  # the first line goes into a small local model's prompt
        assert len(REGISTRY.get(name).summary) <= 110, f"{name}: keep the first docstring line short"
    assert {s.name for s in list_tools_for_tasks(["explanation"])} >= {"done", "clarify", "read_file"}


def test_decorator_attaches_scenarios_side_effects_and_signature(reg: ToolRegistry) -> None:
    spec = reg.get("patch_it")
    assert spec is not None
    assert spec.scenarios == {TaskType.CODE_FIX}
    assert spec.side_effects == {SideEffect.FILE_MUTATION}
    assert spec.signature == "patch_it(path: str, count: int = 1)"
    assert spec.summary == "Patch a file."
    assert patch_it_is_plain_function(reg)


def patch_it_is_plain_function(reg: ToolRegistry) -> bool:
    spec = reg.get("patch_it")
    return spec is not None and spec.func.__codur_tool__ is spec and spec.func(None, path="x") == "x"


def test_selection_by_task_type_exclusions_and_unannotated(reg: ToolRegistry) -> None:
    def names(specs):
        return [s.name for s in specs]
    assert names(list_tools_for_tasks(["code_fix"], registry=reg)) == ["patch_it"]
    assert names(list_tools_for_tasks([TaskType.CODE_FIX, "explanation"], registry=reg)) == ["explain", "patch_it"]
    assert names(list_tools_for_tasks(["code_fix", "explanation"], exclude_side_effects=["file_mutation"],
                                      registry=reg)) == ["explain"]
    assert names(list_tools_for_tasks(["explanation"], exclude_task_types=["code_analysis"], registry=reg)) == []
    assert names(list_tools_for_tasks(["refactor"], include_unannotated=True, registry=reg)) == ["helper"]
    with pytest.raises(ValueError):
        list_tools_for_tasks(["no_such_task"], registry=reg)


def test_bind_tools_and_prompt_block_come_from_the_same_selection(reg: ToolRegistry) -> None:
    specs = list_tools_for_tasks(["code_fix", "explanation"], registry=reg)
    lc = to_langchain_tools(specs)
    block = render_tool_block(specs)
    assert [t.name for t in lc] == [s.name for s in specs]
    assert block.splitlines() == ["- explain(topic: str): Explain a topic.",
                                  "- patch_it(path: str, count: int = 1): Patch a file."]
    schema = lc[1].args_schema.model_json_schema()
    assert set(schema["properties"]) == {"path", "count"} and schema["required"] == ["path"]
    assert "More text for bind_tools only." in lc[1].description


def test_registration_errors_are_clear() -> None:
    reg = ToolRegistry()
    with pytest.raises(TypeError, match="docstring"):
        tool(registry=reg)(lambda ctx: "")
    with pytest.raises(TypeError, match="ctx"):
        @tool(registry=reg)
        def no_ctx(path: str) -> str:
            """Doc."""
            return path
    with pytest.raises(TypeError, match="annotation"):
        @tool(registry=reg)
        def untyped(ctx: ToolContext, path) -> str:
            """Doc."""
            return path

    @tool(registry=reg)
    def once(ctx: ToolContext) -> str:
        """Doc."""
        return ""

    with pytest.raises(ValueError, match="already registered"):
        @tool(registry=reg, name="once")
        def again(ctx: ToolContext) -> str:
            """Doc."""
            return ""


def test_parse_args_gives_a_readable_error(reg: ToolRegistry) -> None:
    spec = reg.get("patch_it")
    assert spec is not None
    assert spec.parse_args({"path": "a.py"}) == {"path": "a.py", "count": 1}
    with pytest.raises(ValueError, match=r"count: .*integer.*Expected patch_it\(path: str, count: int = 1\)"):
        spec.parse_args({"path": "a.py", "count": "many"})
    with pytest.raises(ValueError, match="colour: Extra inputs are not permitted"):
        spec.parse_args({"path": "a.py", "colour": "red"})
