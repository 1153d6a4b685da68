"""System prompts, built from the tool registry: the tools an agent sees are the tools it is bound to.

The rule: a tool's name appears in a prompt only in the tool block that
:func:`codur.tools.registry.render_tool_block` renders for the tools actually bound;
the per-TaskType guidance (:data:`GUIDANCE`) and the call format are written in words
and placeholders, without tool names or example paths.

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

# No tool name and no file path outside the tool list: the list is rendered from the tools
# actually bound, so a prompt can never name a tool the agent was not given (a 1.5B model
# told to use replace_in_file on a code_validation turn called it, got "unknown tool", and
# spent the run on it). The example call uses placeholders.
CALL_FORMAT = (
    "To call a tool, reply with one JSON block and nothing after it:\n"
    "```json\n"
    '{{"name": "<tool name>", "arguments": {{"<argument>": <value>}}}}\n'
    "```\n"
    "You get the result, then continue. Call one tool per reply. The tool list below is all you have."
)

ACTOR = """You are codur, a careful coding agent working in a Python repository.
{call_format}

Tools:
{tools}

How to work: {guidance}"""

FINISH = "finish with a one-line summary"
GUIDANCE: dict[TaskType, str] = {
    TaskType.CODE_FIX: "read the code the failing tests point to, make the smallest correct edit (copy the old text "
    f"exactly, without the line numbers), run the tests, then {FINISH}. Never edit the tests unless the task "
    "asks for it.",
    TaskType.CODE_GENERATION: "read the code the new part joins, write it in small edits, run the tests, then "
    f"{FINISH}. Never edit the tests unless the task asks for it.",
    TaskType.CODE_VALIDATION: "check the code as the task asks: run the tests or the program, read what fails, then "
    "finish with a short report of what passes and what fails. Do not change files.",
    TaskType.CODE_ANALYSIS: "read what you need, then finish with the answer as the summary. Do not change files.",
    TaskType.EXPLANATION: "read what you need, then finish with the answer as the summary. Do not change files.",
    TaskType.FILE_OPERATION: "make the file changes the task asks for and nothing else, then "
    f"{FINISH} of what changed.",
    TaskType.REFACTOR: "change the structure without changing the behaviour, in small edits, run the tests after "
    f"them, then {FINISH}.",
    TaskType.DOCUMENTATION: "write or correct the documentation the task asks for (docstrings, comments, the "
    f"README) without changing the behaviour, then {FINISH}.",
    TaskType.RESULT_VERIFICATION: "check whether the work the task describes is complete: run the tests or the "
    "program and look at the changes, then finish with a short verdict. Do not change files.",
}
"""What an actor does for each TaskType, in words only: the tools are named by the list alone."""

PLANNER = """You plan work for a coding agent on a Python repository. Reply with one JSON object:
{{"task_type": one of {task_types}, "agent": one of {agents}, "steps": ["short step", ...]}}"""

CRITIC = """You review the verification of a coding agent's change. Reply with one JSON object:
{{"reasoning": "one or two sentences on why it failed", "suggestions": ["concrete next step", ...]}}"""

READ_ONLY_TASKS = {TaskType.EXPLANATION, TaskType.CODE_ANALYSIS}  # no writing tools


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


def build_system_prompt(role: str, task_type: TaskType | str, *, agents: list[str] | None = None,
                        extra: str | None = None, read_only: bool = False) -> tuple[str, list[ToolSpec]]:
    """The system prompt for ``role`` (actor, planner, critic) and the tools it lists.

    ``read_only`` (tool policy read_only): the actor gets the analyst's prompt and no tool with
    a FILE_MUTATION, STATE_CHANGE or CODE_EXECUTION side effect.

    Returns:
        (prompt text, the ToolSpecs listed in it — the same ones to bind to the model).

    Raises:
        ValueError: an unknown role or task type.
    """
    task_type = TaskType(task_type)
    specs = tools_for(role, task_type, read_only=read_only)
    if role == "actor":
        # a read-only run (the tool policy) gets the question's guidance: no tool it has may write
        guidance = GUIDANCE[TaskType.EXPLANATION] if read_only else GUIDANCE[task_type]
        text = ACTOR.format(call_format=CALL_FORMAT.format(), tools=render_tool_block(specs), guidance=guidance)
    elif role == "planner":
        text = PLANNER.format(task_types=[t.value for t in TaskType], agents=agents or ["coder"])
    elif role == "critic":
        text = CRITIC.format()
    else:
        raise ValueError(f"unknown role {role!r}")
    if extra:
        text = f"{extra.strip()}\n\n{text}"
    return text, specs
