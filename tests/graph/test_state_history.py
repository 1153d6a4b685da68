"""Issue 38, seed 003's state: the message history, the tool calls and their results are in the
graph state, bounded (Studio shows them; a checkpoint does not grow without limit), and
execute_node returns ``llm_calls``."""

from __future__ import annotations

import json
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from codur import CodurConfig
from codur.engine import EngineComponents, LocalEngine, MockProvider, RunRequest
from codur.graph.records import ToolCallRecord
from codur.graph.state import MAX_MESSAGE_CHARS, MAX_STATE_MESSAGES, bounded, state_messages, tool_call_records

FIX_OLD, FIX_NEW = "if quantity > BULK_THRESHOLD:", "if quantity >= BULK_THRESHOLD:"


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def final_state(saver: InMemorySaver, run_id: str) -> dict:
    return saver.get_tuple({"configurable": {"thread_id": run_id}}).checkpoint["channel_values"]


def test_a_runs_state_holds_the_agents_messages_tool_calls_results_and_llm_calls(invoice_repo: Path) -> None:
    saver = InMemorySaver()
    replies = [call("read_file", path="billing.py"), call("replace_in_file", path="billing.py", old=FIX_OLD,
                                                         new=FIX_NEW), "Fixed: the bulk discount starts at 10."]
    provider = MockProvider(replies)
    config = CodurConfig(critic=False, repair=False, retry_base_delay_s=0, max_turns=2)
    result = LocalEngine(config).run(RunRequest(input="make the failing tests pass", repo=invoice_repo),
                                     EngineComponents(models=provider, checkpointer=saver))
    assert result.ok, result.reason
    state = final_state(saver, result.run_id)
    assert state["llm_calls"] == len(provider.model("actor").calls) == 3
    kinds = [m.type for m in state["messages"]]
    assert kinds == ["human", "ai", "tool", "ai", "tool", "ai"]  # no system prompt
    assert "make the failing tests pass" in state["messages"][0].content
    assert state["messages"][-1].content == "Fixed: the bulk discount starts at 10."
    calls = state["tool_calls"]
    assert [(c.name, c.ok) for c in calls] == [("read_file", True), ("replace_in_file", True)]
    assert "BULK_THRESHOLD" in calls[0].output and calls[1].args["path"] == "billing.py"


def test_the_history_is_bounded_in_length_and_in_each_text() -> None:
    long = "x" * (MAX_MESSAGE_CHARS * 3)
    transcript = [HumanMessage(long)]
    for i in range(60):
        transcript += [AIMessage("", tool_calls=[{"name": "read_file", "args": {"path": long}, "id": f"c{i}"}]),
                       ToolMessage(long, tool_call_id=f"c{i}", status="error" if i % 2 else "success")]
    kept = state_messages(transcript)
    assert len(kept) == MAX_STATE_MESSAGES and kept[-1].tool_call_id == "c59"
    assert all(len(m.content) < MAX_MESSAGE_CHARS + 40 for m in kept)
    records = tool_call_records(transcript)
    assert len(records) == MAX_STATE_MESSAGES and records[-1].call_id == "c59" and records[-1].ok is False
    assert len(records[0].args["path"]) == 200 and len(records[0].output) < MAX_MESSAGE_CHARS + 40
    # the reducer: turns append, the state keeps the latest
    state: list = []
    for turn in range(5):
        state = bounded(state, [ToolCallRecord(name="t", call_id=f"{turn}-{i}") for i in range(15)])
    assert len(state) == MAX_STATE_MESSAGES and state[-1].call_id == "4-14" and state[0].call_id == "2-5"


def test_a_dry_run_returns_zero_llm_calls_and_no_messages(invoice_repo: Path) -> None:
    saver = InMemorySaver()
    config = CodurConfig(critic=False, repair=False, max_turns=1)
    result = LocalEngine(config).run(RunRequest(input="make the failing tests pass", repo=invoice_repo, dry_run=True),
                                     EngineComponents(models=MockProvider([]), checkpointer=saver))
    state = final_state(saver, result.run_id)
    assert state["llm_calls"] == 0 and not state.get("messages")
