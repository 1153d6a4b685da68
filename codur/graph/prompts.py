"""System prompts, built from the tool registry: the tools an agent sees are the tools it is bound to.

Prompts are kept short: on the embedded model every prompt token costs ~15 ms.
Templates use ``str.format`` with every field required, so a missing variable fails loudly.
"""

from __future__ import annotations

from codur.tools.registry import (
    REGISTRY,
    SideEffect,
    TaskType,
    ToolRegistry,
    ToolSpec,
    list_tools_for_tasks,
    render_tool_block,
)

CALL_FORMAT = (
    "To call a tool, reply with one JSON block and nothing after it:\n"
    "```json\n"
    '{{"name": "read_file", "arguments": {{"path": "src/app.py"}}}}\n'
    "```\n"
    "You get the result, then continue. Call one tool per reply."
)

ACTOR = """You are codur, a careful coding agent working in a Python repository.
{call_format}

Tools:
{tools}

How to work: read the code the failing tests point to, make the smallest correct edit with \
replace_in_file (copy the old text exactly, without the line numbers), run the tests, then call \
done with a one-line summary. Never edit the tests unless the task asks for it."""

ANALYST = """You are codur, a coding agent answering questions about a Python repository.
{call_format}

Tools:
{tools}

Read what you need, then call done with the answer as the summary. Do not change files."""

PLANNER = """You plan work for a coding agent on a Python repository. Reply with one JSON object:
{{"task_type": one of {task_types}, "agent": one of {agents}, "steps": ["short step", ...]}}"""

CRITIC = """You review the verification of a coding agent's change. Reply with one JSON object:
{{"reasoning": "one or two sentences on why it failed", "suggestions": ["concrete next step", ...]}}"""

READ_ONLY_TASKS = {TaskType.EXPLANATION, TaskType.CODE_ANALYSIS}


#: side effects a read-only run (``--read-only``, tool policy read_only) is never offered
READ_ONLY_EXCLUDED = (SideEffect.FILE_MUTATION, SideEffect.STATE_CHANGE, SideEffect.CODE_EXECUTION)


def tools_for(role: str, task_type: TaskType | str, registry: ToolRegistry | None = None, *,
              read_only: bool = False) -> list[ToolSpec]:
    """The registry's selection for an agent: actor tools by task type; read-only tasks get no writers;
    with ``read_only`` (the tool policy) no tool that writes files, changes state or runs code."""
    task_type = TaskType(task_type)
    if role != "actor":
        return []
    exclude: tuple[SideEffect, ...] = (SideEffect.FILE_MUTATION, SideEffect.STATE_CHANGE) \
        if task_type in READ_ONLY_TASKS else ()
    if read_only:
        exclude = READ_ONLY_EXCLUDED
    return list_tools_for_tasks([task_type], exclude_side_effects=exclude, registry=registry or REGISTRY)


def build_system_prompt(role: str, task_type: TaskType | str, registry: ToolRegistry | None = None,
                        *, agents: list[str] | None = None, extra: str | None = None,
                        read_only: bool = False) -> tuple[str, list[ToolSpec]]:
    """The system prompt for ``role`` (actor, planner, critic) and the tools it lists.

    ``read_only`` (tool policy read_only): the actor gets the analyst's prompt and no tool with
    a FILE_MUTATION, STATE_CHANGE or CODE_EXECUTION side effect.

    Returns:
        (prompt text, the ToolSpecs listed in it — the same ones to bind to the model).
    """
    task_type = TaskType(task_type)
    specs = tools_for(role, task_type, registry, read_only=read_only)
    if role == "actor":
        template = ANALYST if task_type in READ_ONLY_TASKS or read_only else ACTOR
        text = template.format(call_format=CALL_FORMAT.format(), tools=render_tool_block(specs))
    elif role == "planner":
        text = PLANNER.format(task_types=[t.value for t in TaskType], agents=agents or ["coder"])
    elif role == "critic":
        text = CRITIC.format()
    else:
        raise ValueError(f"unknown role {role!r}")
    if extra:
        text = f"{extra.strip()}\n\n{text}"
    return text, specs
