"""Prompts come from the registry alone (issue 14, item 3): a tool name appears in a system
prompt only in the tool block rendered for the tools bound, and every bound tool is listed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codur import CodurConfig, RunRequest, run
from codur.graph.prompts import GUIDANCE, build_system_prompt
from codur.llm import ScriptedChatModel, StaticModelProvider
from codur.tools import REGISTRY, TaskType

ROLES = ("actor", "planner", "critic")
TOOL_LINE = re.compile(r"^- (\w+)\(", re.MULTILINE)


def mentioned(text: str) -> set[str]:
    """Every registered tool whose name appears in ``text`` as a word."""
    return {name for name in REGISTRY.names() if re.search(rf"(?<![\w/.]){re.escape(name)}(?![\w(/])", text)
            or f"{name}(" in text}


def outside_tool_block(prompt: str) -> str:
    return "\n".join(line for line in prompt.splitlines() if not TOOL_LINE.match(line))


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("task_type", list(TaskType))
def test_every_tool_named_is_bound_and_every_bound_tool_is_listed(role: str, task_type: TaskType) -> None:
    prompt, specs = build_system_prompt(role, task_type, agents=["coder"])
    bound = {s.name for s in specs}
    assert mentioned(prompt) <= bound, f"{role}/{task_type}: names tools it is not given"
    assert TOOL_LINE.findall(prompt) == [s.name for s in specs], f"{role}/{task_type}: the list is not the bound set"
    rest = outside_tool_block(prompt)
    assert mentioned(rest) == set(), f"{role}/{task_type}: a tool named outside the rendered list"
    assert not re.search(r"[\w-]+(/[\w-]+)*\.py\b", rest), f"{role}/{task_type}: an example path"


def test_every_task_type_has_guidance_in_words() -> None:
    assert set(GUIDANCE) == set(TaskType)
    for task_type, text in GUIDANCE.items():
        assert mentioned(text) == set(), task_type


def follows_its_prompt(messages) -> str:
    """A model that does what its prompt's instructions say, as the 1.5B model did: the first
    tool the guidance names, else the tests; then it reports."""
    system = messages[0].content
    if any(m.type == "tool" for m in messages):
        return "```json\n" + json.dumps({"name": "done", "arguments": {"summary": "2 tests fail"}}) + "\n```"
    named = sorted(mentioned(system.split("How to work:")[-1]))
    if "replace_in_file" in named:
        call = {"name": "replace_in_file", "arguments": {"path": "billing.py", "old": "x", "new": "y"}}
    else:
        call = {"name": "run_pytest", "arguments": {}}
    return "```json\n" + json.dumps(call) + "\n```"


def test_a_code_validation_plan_gets_a_prompt_its_tools_can_follow(invoice_repo: Path) -> None:
    """Reproduced on main: the planner picks code_validation, the prompt says replace_in_file,
    the agent is not given it and gets "unknown tool"."""
    planner = ScriptedChatModel(replies=['{"task_type": "code_validation", "agent": "coder", "steps": []}'])
    actor = ScriptedChatModel(replies=[follows_its_prompt, follows_its_prompt])
    task = "check the bulk discount rule that test_discount_starts_at_threshold tests"
    result = run(RunRequest(task=task, repo=invoice_repo),
                 models=StaticModelProvider({"planner": planner, "actor": actor}),
                 config=CodurConfig(critic=False, repair=False, max_turns=1, retry_base_delay_s=0))
    assert result.nodes[:5] == ["initialize", "observe", "plan", "delegate", "execute"]
    system = actor.calls[0][0].content
    bound = {t.name for t in actor.bound_tools}
    assert "replace_in_file" not in bound and mentioned(system) <= bound
    transcript = "\n".join(str(m.content) for m in actor.calls[-1])
    assert "unknown tool" not in transcript
    assert "failed" in transcript and "test_discount_starts_at_threshold" in transcript  # the tests ran
    assert result.diff == ""  # a validation changes nothing
