"""codur/graph/tool_executor.py: ``_TOOL_DETECTOR`` (JSON and plain-text calls) and
``execute_tool_calls`` (the tool loop's execution of a reply's calls) on real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from codur.graph.execution.agent_executor import AgentRun
from codur.graph.tool_executor import _TOOL_DETECTOR, execute_tool_calls
from codur.tools import ToolExecutor

BOUND = {"read_file", "write_file", "done"}


@pytest.mark.parametrize("content", [
    '```json\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```',
    'read_file(path="a.py")',
    "Thought: I should look at it.\nAction: read_file\nAction Input: {\"path\": \"a.py\"}",
], ids=["json", "plain-call", "react"])
def test_detector_reads_json_and_plain_text_calls(content: str) -> None:
    found = _TOOL_DETECTOR(AIMessage(content=content), BOUND)
    assert [(c["name"], c["args"]) for c in found.calls] == [("read_file", {"path": "a.py"})]
    assert found.source == "content" and found.errors == []


@pytest.mark.parametrize("content", [
    'First I would call read_file(path="a.py") to see the code.',  # prose about a tool
    "You can use read_file to read a file.\nAction: read_file",  # an action without input
    'grep(pattern="x")',  # not a bound tool
    'read_file(path=open("a.py").read())',  # arguments that are no literals
    'read_file(file="a.py")',  # arguments that do not fit the tool's schema
    '```python\nread_file(path="a.py")\n```',  # code, not a call
])
def test_detector_never_reads_prose_or_unbound_or_unparsable_calls(content: str) -> None:
    found = _TOOL_DETECTOR(AIMessage(content=content), BOUND)
    assert found.calls == [] and found.errors == [] and found.source == "none"


def test_execute_tool_calls_runs_the_calls_on_real_files(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    tools = ToolExecutor(tmp_path).with_allowed(BOUND)
    calls = _TOOL_DETECTOR(AIMessage(content='write_file(path="b.py", content="y = 2\\n")\n'
                                             'read_file(path="a.py")'), BOUND).calls
    run = AgentRun()
    finished = execute_tool_calls(tools, calls, run, mutating={"write_file"})
    assert finished is False and run.tool_calls == 2 and run.edits == 1
    assert (tmp_path / "b.py").read_text() == "y = 2\n"
    assert all(isinstance(m, ToolMessage) and m.status == "success" for m in run.messages)
    assert "x = 1" in run.messages[1].content
    again = execute_tool_calls(tools, [calls[1], {"name": "done", "args": {"summary": "ok"}, "id": "c9"}], run)
    assert again is True and run.final_text == "ok"
    assert run.repeats == 1 and run.messages[2].status == "error"  # the same read, nothing changed since
