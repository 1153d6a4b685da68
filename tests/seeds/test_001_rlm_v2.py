"""Specification 001, "execution-engine Specification" (the RLM engine, second version).

Its Response Parsing, Execution Loop, Code Block Execution, Execution Trace and Forced Answer
scenarios, and the first three of Bridge Handling, are specification 000's word for word: their
tests are tests/seeds/test_000_rlm_v1.py's (docs/SPEC_CONFORMANCE.md names each). Here: what
the second version adds or words anew — depth selection (auto-downgrade), the wider environment
description, the sub-RLM's budget awareness, batching guidance and the batch bridge.
"""

from __future__ import annotations

import threading
import time

from codur.llm import ScriptedChatModel
from codur.rlm import RLMConfig, RLMEngine
from codur.rlm.bridge import Bridge, ModelClient
from codur.rlm.budget import Budget, BudgetLimits, Usage
from codur.rlm.prompts import CallEstimate, system_prompt
from codur.rlm.trace import RLMTrace
from tests.seeds.conftest import document, scenarios


class Children:
    """Stands in for the engine's sub-executors: records (task, context, budget), spends 100 + 10
    tokens each, and waits (at most 5 s) until ``together`` run at once."""

    def __init__(self, together: int = 0, delay: float = 0.05):
        self.calls: list[tuple[str, str | None, Budget]] = []
        self.running = self.most = 0
        self.together, self.delay = together, delay
        self.lock = threading.Lock()

    def __call__(self, task, context, budget):
        with self.lock:
            self.calls.append((task, context, budget))
            self.running += 1
            self.most = max(self.most, self.running)
        deadline = time.monotonic() + 5
        while self.running < self.together and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(self.delay)
        with self.lock:
            self.running -= 1
        budget.record(Usage(100, 10, 0.0, 1))
        trace = RLMTrace(task=task, depth=budget.depth)
        trace.answer, trace.answer_source, trace.usage = f"answer to {task}", "final_direct", Usage(100, 10, 0.0, 1)
        return trace


def bridge(replies=(), children=None, **limits):
    model = ScriptedChatModel(replies=list(replies))
    budget, trace = Budget(BudgetLimits(**limits)), RLMTrace(task="root")
    children = children or Children()
    return (Bridge(client=ModelClient(model, "scripted"), budget=budget, trace=trace, spawn=children,
                   sub_max_iterations=3, sub_call_chars=200), model, budget, trace, children)


def prompt(budget: Budget) -> str:
    return system_prompt(budget, context_type="str", context_len=50_000, estimate=CallEstimate(2.0, 0.001),
                         sub_chars=4000, output_chars=1500, sub_iterations=4)


def test_the_shared_scenarios_are_the_first_versions_words():
    first, second = scenarios("000"), scenarios("001")
    assert set(first) <= set(second)
    added = [s for s in second if s not in first]
    assert added == ["rlm_query auto-downgrade", "Query choice guidance", "Sub-RLM system prompt",
                     "Sub-RLM efficiency guidance", "Budget allocation visibility", "Batching explanation",
                     "Batching example", "batch_rlm_query bridge", "batch_rlm_query budget check"]
    assert "with intelligent depth selection" in document("001")


# -- Bridge Handling (with intelligent depth selection) --------------------------------------------

def test_rlm_query_auto_downgrade_below_the_threshold_uses_llm_query_instead():
    b, model, budget, trace, children = bridge(["cheap answer"], max_tokens=1000, downgrade_threshold=0.5)
    budget.record(Usage(600, 0))  # 40% left, under the 50% threshold
    assert b.rlm_query("find the key", "the key is 7391") == "cheap answer"
    assert children.calls == [] and len(model.calls) == 1
    assert trace.subcalls[0].mode == "downgraded"


def test_rlm_query_above_the_threshold_spawns_a_sub_rlm():
    b, model, _, trace, children = bridge(max_tokens=1000, downgrade_threshold=0.5)
    assert b.rlm_query("find the key", "the key is 7391") == "answer to find the key"
    assert len(children.calls) == 1 and model.calls == [] and trace.subcalls[0].mode == "rlm"


# -- System Prompt ---------------------------------------------------------------------------------

def test_environment_description_names_every_function():
    text = prompt(Budget(BudgetLimits()))
    for name in ("llm_query", "rlm_query", "batch_rlm_query", "chunk_text", "search_context", "count_matches",
                 "extract_json", "extract_sections"):
        assert f"{name}(" in text


# -- Sub-RLM Budget Awareness ----------------------------------------------------------------------

def child_prompt() -> tuple[str, Budget]:
    root = Budget(BudgetLimits(max_cost_usd=1.0, max_tokens=10_000, max_depth=2))
    child = root.allocate(0.5, max_iterations=3)
    return prompt(child), child


def test_sub_rlm_system_prompt_has_current_and_max_depth_allocated_budget_and_efficiency_guidelines():
    text, child = child_prompt()
    assert child.depth == 1 and "depth 1 of max 2" in text
    assert "$0.5000" in text and "5,000 tokens" in text and "3 iterations" in text
    assert "prefer llm_query" in text.lower()


def test_sub_rlm_efficiency_guidance_prefer_llm_query_complete_in_2_5_iterations_return_final_promptly():
    text, _ = child_prompt()
    assert "prefer llm_query" in text.lower() and "2-5 iterations" in text and "FINAL() promptly" in text


def test_budget_allocation_visibility_shows_allocated_and_parents_remaining_budget():
    text, _ = child_prompt()
    assert "Your budget: $0.5000, 5,000 tokens" in text and "your parent has $1.0000, 10,000 tokens left" in text


def test_the_root_prompt_is_no_sub_rlm_prompt():
    assert "your parent has" not in prompt(Budget(BudgetLimits()))


def test_sub_rlms_spawned_by_rlm_query_get_the_sub_rlm_prompt():
    def reply(messages):
        system = str(messages[0].content)
        if "sub-RLM at depth 1" in system:
            return "FINAL(7391)"
        return "```repl\nprint(rlm_query('find the key', context))\n```" if len(messages) == 2 else "FINAL(7391)"

    model = ScriptedChatModel(replies=[reply] * 4)
    RLMEngine(model, RLMConfig(max_depth=1)).run("What is the key?", "the key is 7391")
    systems = [str(call[0].content) for call in model.calls]
    assert any("sub-RLM at depth 1 of max 1" in s and "your parent has" in s for s in systems)


# -- Code Block Batching Guidance ------------------------------------------------------------------

def test_batching_explanation_multiple_blocks_run_sequentially_and_save_iterations():
    text = prompt(Budget(BudgetLimits())).lower()
    assert "several" in text or "multiple" in text
    assert "run in order" in text and "costs one iteration" in text  # the iterations saved


# -- Batch RLM Bridge ------------------------------------------------------------------------------

def test_batch_rlm_query_bridge_spawns_sub_executors_concurrently_and_records_combined_usage():
    children = Children(together=3)
    b, _, budget, trace, _ = bridge(children=children, max_parallel=3, max_tokens=100_000)
    answers = b.batch_rlm_query(["a", "b", "c"], ["A", "B", "C"])
    assert answers == ["answer to a", "answer to b", "answer to c"] and children.most == 3
    batch = trace.subcalls[0]
    assert batch.kind == "batch_rlm_query" and len(batch.children) == 3
    assert batch.usage.total_tokens == 330 == budget.spent.total_tokens


def test_batch_rlm_query_budget_check_before_spawning_and_parallelism_limited_by_the_budget():
    b, model, _, trace, children = bridge(["one", "two"], max_depth=0)  # no sub-RLM allowed: checked first
    assert sorted(b.batch_rlm_query(["t1", "t2"], ["c1", "c2"])) == ["one", "two"]
    assert children.calls == [] and trace.subcalls[0].mode == "direct"
    limited = Children(together=2)
    b, _, budget, _, _ = bridge(children=limited, max_parallel=4, max_tokens=100_000)
    budget.record(Usage(50_000, 0))  # half the budget left: two at once, not four
    b.batch_rlm_query(["a", "b", "c", "d"])
    assert limited.most == 2 and len(limited.calls) == 4
