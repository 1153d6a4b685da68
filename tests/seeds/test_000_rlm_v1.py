"""Specification 000, "Capability: execution-engine" (the RLM engine, first version), scenario by
scenario, in its words. The document's names are TypeScript's; codur's are Python's
(``codeBlocks`` -> ``code_blocks``, ``finalAnswer`` -> ``final`` with ``kind`` for ``type``,
``iteration.codeExecutions`` -> ``iteration.executions``, ``answerSource`` -> ``answer_source``,
``canProceed`` -> ``can_proceed``; AGENTIC_LOGIC.md's deviations table).

The model is codur's scripted chat model; the REPL is the real sandbox worker. Specification
001 repeats these scenarios word for word (tests/seeds/test_001_rlm_v2.py adds its own).
"""

from __future__ import annotations

from codur.llm import ScriptedChatModel
from codur.rlm import FORCED_WARNING, RLMConfig, RLMEngine, parse_response
from codur.rlm.bridge import Bridge, ModelClient
from codur.rlm.budget import Budget, BudgetLimits
from codur.rlm.prompts import CallEstimate, system_prompt
from codur.rlm.trace import RLMTrace

TEXT = "header\n" + "noise line\n" * 50 + "the key is 7391\n" + "noise line\n" * 50


def run(replies, question="What is the key?", context=TEXT, **config):
    """The engine as the document describes its loop: the evidence checks codur adds (an answer
    judged by what the model's own code printed, AGENTIC_LOGIC.md's deviations) are off here."""
    model = ScriptedChatModel(replies=list(replies))
    config.setdefault("check_evidence", False)
    return RLMEngine(model, RLMConfig(**config)).run(question, context), model


def test_final_without_printed_evidence_is_asked_again_once_the_checks_are_on():
    """The deviation: with the evidence checks (the default), a FINAL the run's code never
    printed does not end the loop at once; the model is asked again with what it printed."""
    result, model = run(["FINAL(7391)", "```repl\nprint(context)\n```", "FINAL(7391)"], check_evidence=True)
    assert len(model.calls) >= 2 and result.answer == "7391"


def prompt(budget: Budget) -> str:
    return system_prompt(budget, context_type="str", context_len=len(TEXT), estimate=CallEstimate(2.0, 0.001),
                         sub_chars=4000, output_chars=1500, sub_iterations=4)


# -- Response Parsing ------------------------------------------------------------------------------

def test_extract_code_blocks_from_repl_or_python_blocks_into_code_blocks():
    parsed = parse_response("look:\n```repl\nx = 1\n```\nthen\n```python\nprint(x)\n```\n```bash\nls\n```")
    assert parsed.code_blocks == ("x = 1", "print(x)")


def test_extract_final_direct_answer_with_type_direct_and_the_value():
    final = parse_response("Done.\nFINAL(the key is 7391)").final
    assert (final.kind, final.value) == ("direct", "the key is 7391")


def test_extract_final_var_reference_with_type_variable_and_the_variable_name():
    final = parse_response("FINAL_VAR(key)").final
    assert (final.kind, final.value) == ("variable", "key")


def test_extract_thinking_outside_code_blocks_and_final_markers():
    parsed = parse_response("I will search.\n```repl\nprint(1)\n```\nAnd conclude. FINAL(1)")
    assert parsed.thinking == "I will search.\n\nAnd conclude." and "FINAL" not in parsed.thinking


# -- Execution Loop --------------------------------------------------------------------------------

def test_loop_continues_while_can_proceed_iteration_and_no_final_marker():
    result, model = run(["```repl\nprint(1)\n```", "```repl\nprint(2)\n```", "FINAL(7391)"], max_iterations=5)
    assert len(model.calls) == 3 and len(result.trace.iterations) == 3 and result.answer == "7391"


def test_loop_stops_on_final_or_final_var():
    direct, model = run(["FINAL(7391)", "never read"])
    assert len(model.calls) == 1 and direct.answer_source == "final_direct"
    variable, model = run(["```repl\nkey = context.split('the key is ')[1].split()[0]\n```\nFINAL_VAR(key)", "x"])
    assert len(model.calls) == 1 and (variable.answer, variable.answer_source) == ("7391", "final_var")


def test_loop_stops_on_budget_exhaustion_and_forces_an_answer():
    budget = Budget(BudgetLimits(max_iterations=2))
    for _ in range(2):
        assert budget.can_proceed("iteration")
        budget.start_iteration()
    assert not budget.can_proceed("iteration")
    result, model = run(["```repl\nprint(1)\n```", "```repl\nprint(2)\n```", "FINAL(7391)"], max_iterations=2)
    assert len(model.calls) == 3 and result.answer_source == "forced"


# -- Code Block Execution --------------------------------------------------------------------------

def test_execute_all_code_blocks_in_order():
    result, _ = run(["```repl\nn = 2\n```\n```repl\nn = n * 10\n```\n```python\nprint(n)\n```", "FINAL(20)"])
    assert [e.stdout for e in result.trace.iterations[0].executions] == ["", "", "20\n"]


def test_capture_execution_results_in_iteration_code_executions():
    result, _ = run(["```repl\nprint(len(context))\n```\n```repl\n1/0\n```", "FINAL(x)"])
    ok, failed = result.trace.iterations[0].executions
    assert (ok.code, ok.stdout, ok.error) == ("print(len(context))", f"{len(TEXT)}\n", None)
    assert "ZeroDivisionError" in failed.error


def test_build_execution_context_output_included_in_next_iterations_context():
    _, model = run(["```repl\nprint('marker-' + str(6 * 7))\n```", "FINAL(42)"])
    assert "marker-42" in model.calls[1][-1].content


# -- Bridge Handling -------------------------------------------------------------------------------

def test_llm_query_bridge_routes_to_the_llm_and_records_usage():
    model = ScriptedChatModel(replies=["a summary"])
    budget, trace = Budget(BudgetLimits()), RLMTrace(task="root")
    bridge = Bridge(client=ModelClient(model, "scripted"), budget=budget, trace=trace, spawn=None,
                    sub_max_iterations=3, sub_call_chars=100)
    assert bridge.llm_query("summarise this") == "a summary"
    assert model.calls[0][-1].content == "summarise this"
    assert trace.subcalls[0].kind == "llm_query" and trace.subcalls[0].usage.calls == 1
    assert budget.spent.calls == 1


def test_rlm_query_bridge_with_budget_spawns_a_sub_executor_with_an_allocated_sub_budget():
    spawned = []

    def spawn(task, context, budget):
        spawned.append(budget)
        child = RLMTrace(task=task, depth=budget.depth)
        child.answer, child.answer_source = "sub answer", "final_direct"
        return child

    root = Budget(BudgetLimits(max_tokens=10_000, max_depth=1))
    bridge = Bridge(client=ModelClient(ScriptedChatModel(replies=[]), "scripted"), budget=root,
                    trace=RLMTrace(task="root"), spawn=spawn, sub_max_iterations=3, sub_call_chars=100)
    assert bridge.rlm_query("find the key", "the key is 7391") == "sub answer"
    (child,) = spawned
    assert child.parent is root and child.depth == 1 and child.limits.max_iterations == 3
    assert 0 < child.limits.max_tokens < root.limits.max_tokens


# -- Execution Trace -------------------------------------------------------------------------------

def test_trace_structure_id_depth_task_and_empty_iterations_and_subcalls():
    trace = RLMTrace(task="What is the key?")
    assert trace.id.startswith("rlm-") and trace.depth == 0 and trace.task == "What is the key?"
    assert trace.iterations == [] and trace.subcalls == []


def test_record_iterations_appended_to_trace_iterations():
    result, _ = run(["```repl\nprint(1)\n```", "FINAL(7391)"])
    assert [i.index for i in result.trace.iterations] == [1, 2]
    assert result.trace.iterations[0].executions[0].stdout == "1\n"


def test_record_subcalls_sub_trace_appended_to_trace_subcalls():
    def reply(messages):
        if "sub-RLM at depth 1" in str(messages[0].content):
            return "FINAL(7391)"
        return "```repl\nprint(rlm_query('find the key', context[-600:]))\n```" if len(messages) == 2 else "FINAL(7391)"

    result, _ = run([reply] * 4, max_depth=1)
    sub = result.trace.subcalls[0]
    assert (sub.kind, sub.mode) == ("rlm_query", "rlm")
    assert sub.trace.depth == 1 and sub.trace.parent_id == result.trace.id and sub.trace.answer == "7391"


# -- Forced Answer ---------------------------------------------------------------------------------

def test_force_answer_on_exhaustion_requests_a_summary_answer_from_the_llm():
    result, model = run(["```repl\nprint(1)\n```", "My answer: FINAL(7391)"], max_iterations=1)
    assert len(model.calls) == 2 and "budget is exhausted" in model.calls[1][-1].content.lower()
    assert (result.answer, result.answer_source) == ("7391", "forced")


def test_warning_on_forced_answer_budget_exhausted_answer_was_forced():
    result, _ = run(["```repl\nprint(1)\n```", "FINAL(7391)"], max_iterations=1)
    assert FORCED_WARNING == "Budget exhausted, answer was forced"
    assert FORCED_WARNING in result.trace.warnings


# -- System Prompt ---------------------------------------------------------------------------------

def test_environment_description_names_llm_query_rlm_query_chunk_text_search_context():
    text = prompt(Budget(BudgetLimits()))
    for name in ("llm_query", "rlm_query", "chunk_text", "search_context"):
        assert f"{name}(" in text


def test_budget_visibility_shows_remaining_cost_iterations_and_depth():
    budget = Budget(BudgetLimits(max_cost_usd=0.25, max_iterations=5, max_depth=2))
    budget.start_iteration()
    text = prompt(budget)
    assert "$0.2500" in text and "4 iterations" in text and "depth 0 of max 2" in text


def test_termination_instructions_explain_final_and_final_var():
    text = prompt(Budget(BudgetLimits()))
    assert "FINAL(" in text and "FINAL_VAR(" in text
