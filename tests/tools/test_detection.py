"""Tool-call detection on replies recorded from the real local model and on hand-written replies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from codur.tools import REGISTRY, detect_tool_calls

REPLIES = Path(__file__).parent.parent / "fixtures" / "replies"
RECORDED = json.loads((REPLIES / "local_model_replies.json").read_text())
HAND = json.loads((REPLIES / "hand_written.json").read_text())


@pytest.mark.parametrize("reply", RECORDED["replies"], ids=lambda r: r["expected_tool"])
def test_recorded_local_model_replies(reply: dict) -> None:
    """Qwen2.5-Coder-1.5B writes its calls in the content (tool_calls stays empty)."""
    message = AIMessage(content=reply["content"], tool_calls=reply["tool_calls"])
    found = detect_tool_calls(message, REGISTRY.names(), registry=REGISTRY)
    assert found.errors == []
    assert [c["name"] for c in found.calls] == [reply["expected_tool"]]
    assert found.source == ("native" if reply["tool_calls"] else "content")
    call = found.calls[0]
    assert call["type"] == "tool_call" and call["id"].startswith("call_")
    REGISTRY.get(call["name"]).parse_args(call["args"])  # the arguments fit the tool's schema


def test_recorded_prompt_is_built_from_the_registry() -> None:
    assert RECORDED["model"] == "qwen2.5-coder-1.5b-instruct"
    assert "- read_file(path: str" in RECORDED["system"] and "- run_pytest(" in RECORDED["system"]


@pytest.mark.parametrize("case", HAND["cases"], ids=lambda c: c["id"])
def test_hand_written_replies(case: dict) -> None:
    found = detect_tool_calls(AIMessage(content=case["content"]), HAND["known"])
    assert [[c["name"], c["args"]] for c in found.calls] == case["calls"]
    assert len(found.errors) == len(case["errors"])
    for error, expected in zip(found.errors, case["errors"], strict=False):
        assert expected in error
    assert found.source == ("content" if case["calls"] or case["errors"] else "none")


def test_wrong_argument_types_become_readable_errors() -> None:
    reply = AIMessage(
        content='```json\n{"name": "read_file", "arguments": {"path": "calc.py", "start_line": "ten"}}\n```'
    )
    found = detect_tool_calls(reply, registry=REGISTRY)
    assert found.calls == []
    assert found.errors == [("bad arguments for read_file: start_line: Input should be a valid integer, unable to "
                             "parse string as an integer. Expected read_file(path: str, start_line: int = 1, "
                             "end_line: int | None = None)")]
    missing = detect_tool_calls(AIMessage(content='{"name": "grep", "arguments": {}}'), registry=REGISTRY)
    assert missing.errors and "pattern: Field required" in missing.errors[0]


def test_native_tool_calls_come_first() -> None:
    message = AIMessage(content='```json\n{"name": "done", "arguments": {"summary": "x"}}\n```',
                        tool_calls=[{"name": "read_file", "args": {"path": "a.py"}, "id": "abc", "type": "tool_call"}])
    found = detect_tool_calls(message, ["read_file", "done"])
    assert found.source == "native" and found.calls == [
        {"name": "read_file", "args": {"path": "a.py"}, "id": "abc", "type": "tool_call"}]
    broken = AIMessage(content="", invalid_tool_calls=[
        {"name": "read_file", "args": '{"path": ', "id": "x", "error": "bad JSON", "type": "invalid_tool_call"}])
    found = detect_tool_calls(broken, ["read_file"])
    assert found.calls == [] and found.errors[0].startswith("could not parse the arguments of read_file: bad JSON")


def test_content_as_a_list_of_parts_and_an_empty_reply() -> None:
    parts = AIMessage(
        content=[{"type": "text", "text": '```json\n{"name": "done", "arguments": {"summary": "ok"}}\n```'}]
    )
    assert [c["name"] for c in detect_tool_calls(parts).calls] == ["done"]
    assert detect_tool_calls(AIMessage(content="")).source == "none"


def test_recorded_calls_run_through_the_executor(ex, repo: Path) -> None:
    """The model's own calls, detected from its text, do real work on a real repo."""
    wanted = {"read_file", "replace_in_file", "write_file", "done"}
    outputs = {}
    for reply in RECORDED["replies"]:
        for call in detect_tool_calls(AIMessage(content=reply["content"]), REGISTRY.names()).calls:
            if call["name"] in wanted and not call["args"].get("path", "").startswith("src/"):
                result = ex.execute(call["name"], call["args"], call["id"])
                assert result.ok, result.output
                outputs[call["name"]] = result.output
    assert set(outputs) == wanted
    assert "return a + b" in (repo / "calc.py").read_text()
    assert "def main():" in (repo / "hello.py").read_text()
    assert outputs["done"].startswith("All tests passed now.")


def test_json_quoted_in_a_sentence_deletes_nothing_and_the_model_is_told(ex, repo: Path) -> None:
    """Issue 14, item 8: 'later one could run {"name": "delete_file", ...}' is prose, not a call."""
    from langchain_core.messages import HumanMessage, SystemMessage

    from codur.graph.execution.agent_executor import AgentExecutor
    from codur.llm import ScriptedChatModel

    prose = 'The fix is in. later one could run {"name": "delete_file", "arguments": {"path": "calc.py"}}'
    found = detect_tool_calls(AIMessage(content=prose), REGISTRY.names(), registry=REGISTRY)
    assert found.calls == [] and len(found.errors) == 1
    assert "JSON inside prose is not a tool call; reply with the JSON alone or in a ```json block" in found.errors[0]

    model = ScriptedChatModel(replies=[prose, "Nothing else to do."])
    specs = [REGISTRY.get(n) for n in ("read_file", "delete_file", "done")]
    run = AgentExecutor(model, ex, specs, max_iterations=3).run([SystemMessage("s"), HumanMessage("tidy up")])
    assert (repo / "calc.py").exists() and run.tool_calls == 0
    note = model.calls[1][-1]  # the message after the prose reply, sent with the next call
    assert isinstance(note, HumanMessage) and "delete_file: not run" in note.content
    assert "JSON inside prose is not a tool call" in note.content
    assert run.stop_reason == "no_tool_call" and run.final_text == "Nothing else to do."
