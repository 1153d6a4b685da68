"""Issue 38, seed 004's Plan state: "call `planner` role (fallback to `actor`) to outline next step".
A planner model named for the role is asked on every plan, clear wording or not; without one the
keyword fast path classifies a clear task (the documented deviation: a planner call on the
embedded model costs seconds a clear task does not need)."""

from __future__ import annotations

import json
from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver

from codur import CodurConfig
from codur.engine import EngineComponents, LocalEngine, MockProvider, RunRequest

FIX_OLD, FIX_NEW = "if quantity > BULK_THRESHOLD:", "if quantity >= BULK_THRESHOLD:"
PLAN = '{"task_type": "code_fix", "steps": ["read billing.py", "make the bulk discount start at 10"]}'
CLEAR = "make the failing tests pass"  # the fast path's wording: code_fix with failing tests


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def run_on(repo: Path, provider: MockProvider, **overrides):
    saver = InMemorySaver()
    config = CodurConfig(**{"critic": False, "repair": False, "retry_base_delay_s": 0, "max_turns": 2, **overrides})
    result = LocalEngine(config).run(RunRequest(input=CLEAR, repo=repo),
                                     EngineComponents(models=provider, checkpointer=saver))
    state = saver.get_tuple({"configurable": {"thread_id": result.run_id}}).checkpoint["channel_values"]
    return result, state


def test_a_configured_planner_is_asked_even_for_clear_wording(invoice_repo: Path) -> None:
    provider = MockProvider([call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW), "Fixed."],
                            roles={"planner": [PLAN]})
    result, state = run_on(invoice_repo, provider)
    assert result.ok, result.reason
    assert len(provider.model("planner").calls) == 1
    assert f"Task: {CLEAR}" in str(provider.model("planner").calls[0][-1].content)
    assert state["plan"].source == "planner" and state["plan"].steps[0] == "read billing.py"


def test_without_a_planner_model_clear_wording_takes_the_fast_path(invoice_repo: Path) -> None:
    provider = MockProvider([call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW), "Fixed."])
    result, state = run_on(invoice_repo, provider)
    assert result.ok, result.reason
    assert state["plan"].source == "fast_path"
    assert len(provider.model("actor").calls) == 2  # both the agent's: the actor was not asked to plan


def test_a_configured_planner_is_not_asked_in_a_run_that_calls_no_model(invoice_repo: Path) -> None:
    provider = MockProvider([], roles={"planner": [PLAN]})
    result, state = run_on(invoice_repo, provider, fixers=["mutation"], repair=True)
    assert result.ok, result.reason  # mutation search fixed it
    assert provider.model("planner").calls == [] and state["plan"].source == "fast_path"
