"""The RLM loop with the scripted model: code runs, FINAL rules, forced answers, sub-RLMs, traces, prompts."""

import json
import re

from codur.llm import ScriptedChatModel
from codur.rlm import FORCED_WARNING, RLMConfig, RLMEngine
from codur.rlm.budget import Budget, BudgetLimits
from codur.rlm.prompts import CallEstimate, system_prompt

HAYSTACK = "filler line\n" * 200 + "The magic number is 48213.\n" + "more filler\n" * 200


def run(replies, context=HAYSTACK, question="What is the magic number?", **config):
    model = ScriptedChatModel(replies=list(replies))
    config.setdefault("check_evidence", False)  # the loop's own rules; the evidence checks: test_rlm_evidence.py
    result = RLMEngine(model, RLMConfig(**config)).run(question, context)
    return result, model


def test_code_runs_and_its_output_reaches_the_next_turn():
    result, model = run([
        "Let me search.\n```repl\nprint(search_context('magic number', window=20))\n```",
        "FINAL(48213)",
    ])
    assert (result.answer, result.answer_source) == ("48213", "final_direct")
    first = result.trace.iterations[0]
    assert first.executions[0].error is None and "48213" in first.executions[0].stdout
    assert first.thinking == "Let me search."
    feedback = model.calls[1][-1].content
    assert "[block 1]" in feedback and "48213" in feedback and "FINAL(answer)" in feedback


def test_several_blocks_of_one_reply_run_in_order_in_one_iteration():
    result, _ = run(["```repl\na = 2\n```\n```repl\nb = a * 21\n```\n```repl\nprint(b)\n```", "FINAL(42)"])
    executions = result.trace.iterations[0].executions
    assert [e.stdout for e in executions] == ["", "", "42\n"]


def test_code_and_final_in_one_reply_runs_the_code_first():
    result, model = run(["```repl\nanswer = context.count('filler line')\n```\nFINAL_VAR(answer)"])
    assert (result.answer, result.answer_source) == ("200", "final_var")
    assert len(model.calls) == 1 and len(result.trace.iterations[0].executions) == 1


def test_final_is_refused_when_the_code_of_the_same_reply_failed():
    result, model = run(["```repl\nprint(undefined_name)\n```\nFINAL(I am sure it is 7)", "FINAL(48213)"])
    assert (result.answer, result.answer_source) == ("48213", "final_direct")
    first = result.trace.iterations[0]
    assert first.final == {"kind": "direct", "value": "I am sure it is 7", "accepted": False, "premature": True}
    assert first.extraction is None  # an error is no output to answer from: the loop goes on
    feedback = model.calls[1][-1].content
    assert "a code block failed" in feedback and "I am sure it is 7" not in feedback
    assert "I am sure it is 7" not in model.calls[1][-2].content  # dropped from the reply in the history


def test_final_written_with_code_is_answered_from_the_output_the_model_then_sees():
    """Issue 26, item 1: the lookup case — the code printed the right line, the reply already held FINAL(39)."""
    log = "config service=billing-12 port=11111\n" * 50 + "config service=billing-46 port=43071\n" + "x\n" * 50
    result, model = run([
        "```repl\nprint(grep('billing-46'))\n```\nFINAL(39)",
        '{"answer": "43071"}',
    ], context=log, question="Which port does service billing-46 use?")
    assert (result.answer, result.answer_source) == ("43071", "extracted")
    first = result.trace.iterations[0]
    assert first.final["premature"] and not first.final["accepted"]
    prompt = model.calls[1]
    history = "".join(str(m.content) for m in prompt)
    assert "FINAL(39)" not in history and "39" not in str(prompt[-2].content)
    assert "grep('billing-46')" in str(prompt[-2].content)  # the code stays, only the FINAL goes
    assert "['config service=billing-46 port=43071']" in str(prompt[-1].content)
    assert "Answer the question from this output only" in str(prompt[-1].content)
    assert "single line" in str(prompt[-1].content)  # the output is one line and the question says "which"
    assert model.call_kwargs[1]["response_format"]["type"] == "json_schema"
    assert first.extraction["structured"] and first.extraction["answer"] == "43071"


def test_an_extraction_that_finds_no_answer_returns_to_the_loop():
    result, model = run([
        "```repl\nprint(grep('magic'))\n```\nFINAL(12)",
        '{"answer": ""}',
        "FINAL(48213)",
    ])
    assert (result.answer, result.answer_source) == ("48213", "final_direct")
    third = model.calls[2]
    assert "does not hold the answer yet" in str(third[-1].content)
    assert len(third) == 4  # system, first turn, the reply without its FINAL, the next turn: no extraction turn
    assert "FINAL(12)" not in "".join(str(m.content) for m in third)


def test_final_written_with_code_is_honoured_after_the_code_when_confirmation_is_off():
    result, model = run(["```repl\nx = 6 * 7\n```\nFINAL(42)"], confirm_final_with_code=False)
    assert (result.answer, result.answer_source) == ("42", "final_direct")
    assert len(model.calls) == 1 and result.trace.iterations[0].executions[0].error is None


def test_final_var_of_an_unknown_variable_is_refused():
    result, model = run(["FINAL_VAR(nothing_here)", "FINAL(ok)"])
    assert result.answer == "ok"
    assert "no variable 'nothing_here'" in model.calls[1][-1].content


def test_final_inside_a_code_fence_is_run_not_read():
    """A FINAL in code is a call: the answer is the value the code computed (1), never the text
    written in the fence ("x"), and only once the code ran."""
    result, _ = run(["```repl\nx = 1\nFINAL(x)\n```", "FINAL(done)"])
    assert (result.answer, result.answer_source) == ("1", "final_var") and len(result.trace.iterations) == 1
    result, _ = run(["```repl\nx = 1\nprint(y)\nFINAL(x)\n```", "FINAL(done)"])
    assert result.answer == "done" and len(result.trace.iterations) == 2  # the code failed before its FINAL


def test_a_repeated_reply_restarts_the_conversation_from_the_evidence():
    """A small model copies its own replies: after a repeat, the history is dropped and one turn
    shows the question, the context's start and what the code printed so far."""
    _, model = run(["```repl\nx = 41\nprint(x + 1)\n```", "```repl\nx = 41\nprint(x + 1)\n```", '{"answer": ""}',
                    "FINAL(x)"])
    assert "repeated" not in model.calls[1][-1].content and len(model.calls[1]) == 4
    # the repeated block printed a single value of the kind asked: the answer is asked from it first
    assert "Answer the question from this output only" in model.calls[2][-1].content
    restart = model.calls[3]
    assert len(restart) == 2 and "repeated an earlier one word for word" in restart[-1].content
    assert "[iteration 2 block 1]\n42" in restart[-1].content and "x = 41" not in restart[-1].content


def test_a_reply_without_code_restarts_the_conversation():
    _, model = run(["The answer is in the port line.\n\nFINAL_VAR(the port)", "FINAL(x)"])
    assert len(model.calls[1]) == 2 and "no ```repl block and no FINAL" in model.calls[1][-1].content
    assert "port line" not in model.calls[1][-1].content


def test_budget_exhausted_forces_an_answer_with_a_warning():
    result, model = run(["```repl\nprint(1)\n```", "```repl\nprint(2)\n```", "My best guess: FINAL(7)"],
                        max_iterations=2)
    assert (result.answer, result.answer_source) == ("7", "forced")
    assert FORCED_WARNING in result.trace.warnings
    assert "budget is exhausted" in model.calls[2][-1].content
    assert len(result.trace.iterations) == 3 and result.trace.iterations[-1].executions == []


def test_a_final_var_holding_none_is_refused_on_the_last_iteration_too_and_the_forced_answer_follows():
    # the ledger join took `None` at its last iteration: `None` is never the answer to a question
    result, _ = run(["```repl\ncity = None\nprint(city)\n```\nFINAL_VAR(city)", "FINAL(48213)"], max_iterations=1)
    assert (result.answer, result.answer_source) == ("48213", "forced")
    first = result.trace.iterations[0]
    assert first.final["refused"] == "empty" and not first.final["accepted"]


def test_forced_answer_without_final_uses_the_text():
    result, _ = run(["```repl\nprint(1)\n```", "It is probably 7."], max_iterations=1)
    assert (result.answer, result.answer_source) == ("It is probably 7.", "forced")


def test_model_failure_ends_with_answer_source_error():
    result, _ = run([ConnectionError("endpoint down")])
    assert result.answer_source == "error" and result.answer is None
    assert "endpoint down" in result.trace.error


def test_trace_is_complete_and_saved_as_json(tmp_path):
    model = ScriptedChatModel(replies=["```repl\nprint(len(context))\n```", "FINAL(yes)"])
    result = RLMEngine(model, RLMConfig(check_evidence=False), run_dir=tmp_path).run("q?", "abc")
    assert result.trace_path == tmp_path / "rlm" / f"{result.trace.id}.json"
    data = json.loads(result.trace_path.read_text())
    assert {"id", "depth", "task", "iterations", "subcalls", "answer_source", "usage", "warnings"} <= set(data)
    assert data["answer_source"] == "final_direct" and data["depth"] == 0 and data["task"] == "q?"
    assert data["iterations"][0]["executions"][0]["stdout"] == "3\n"
    assert data["usage"]["calls"] == 2 and data["usage"]["total_tokens"] > 0


def _by_role(messages):
    """A scripted reply that depends on whether the caller is the root or a sub-RLM."""
    system = str(messages[0].content)
    if "sub-RLM at depth 1" in system:
        return "FINAL(sub found 48213)"
    if "Answer the task directly" in system:
        return "direct"
    if len(messages) == 2:
        return ("```repl\nparts = chunk_text(size=3000)\nanswers = batch_rlm_query("
                "['find the magic number'] * 2, parts[:2])\none = rlm_query('find it', parts[1])\n"
                "print(answers, one)\n```")
    return "FINAL_VAR(one)"


def test_sub_rlms_run_with_their_own_traces():
    model = ScriptedChatModel(replies=[_by_role] * 6)
    result = RLMEngine(model, RLMConfig(max_depth=1, check_evidence=False)).run("What is the magic number?", HAYSTACK)
    assert (result.answer, result.answer_source) == ("sub found 48213", "final_var")
    kinds = [(c.kind, c.mode) for c in result.trace.subcalls]
    assert kinds == [("batch_rlm_query", "rlm"), ("rlm_query", "rlm")]
    children = result.trace.subcalls[0].children
    assert len(children) == 2 and all(c.trace.depth == 1 and c.trace.parent_id == result.trace.id
                                      for c in children)
    assert result.trace.usage.calls == 5  # root 2 + three sub-RLMs of 1 call each
    tree = result.trace.render_tree()
    assert "batch_rlm_query [rlm]" in tree and "depth=1" in tree


def test_system_prompt_names_functions_budget_and_protocol():
    budget = Budget(BudgetLimits(max_cost_usd=0.5, max_iterations=5, max_depth=2))
    text = system_prompt(budget, context_type="str", context_len=1_000_000, estimate=CallEstimate(4.0, 0.001),
                         sub_chars=8000, output_chars=1500, sub_iterations=4)
    for name in ("llm_query", "rlm_query", "batch_rlm_query", "chunk_text", "search_context",
                 "count_matches", "extract_json", "extract_sections", "FINAL(", "FINAL_VAR(", "```repl"):
        assert name in text
    assert "1,000,000 characters" in text and "5 iterations" in text and "$0.5000" in text
    assert "depth 0 of max 2" in text and "one reply with several blocks costs one iteration" in text
    assert re.search(r"```repl\n[^`]+```\n```repl\n[^`]+```", text)  # seed 001: an example of batched blocks
    assert "~1 model call(s), ~4s, ~$0.0010" in text and "~3 model call(s), ~12s" in text
    assert "You are a sub-RLM" not in text


def test_root_prompt_estimates_come_from_the_models_price_then_its_measured_speed():
    """Issue 23, item 4: no fixed "~5s, ~$0.0000"; the configured price, then measured calls."""
    model = ScriptedChatModel(replies=["FINAL(1)", "FINAL(2)"])
    engine = RLMEngine(model, RLMConfig(sub_call_chars=12_000, check_evidence=False), prices={"scripted": (3.0, 15.0)})
    earlier = engine.run("q1", "text").trace.usage
    first = model.calls[0][0].content
    # 12,000 prompt chars = 3,000 tokens at $3/Mtok + a 500-token answer at $15/Mtok = $0.0165
    assert "~1 model call(s), time not measured yet, ~$0.0165." in first and "~5s" not in first
    engine.run("q2", "text")
    second = model.calls[1][0].content
    assert "time not measured yet" not in second
    assert earlier.calls == 1 and f"~{earlier.model_s:.0f}s, ~${earlier.cost_usd:.4f}." in second
    assert engine.measured.calls == 2
    unpriced = ScriptedChatModel(replies=["FINAL(3)"], model_name="no-such-model-xyz")
    RLMEngine(unpriced, RLMConfig(check_evidence=False)).run("q3", "text")
    assert "cost unknown (no price for the model)" in unpriced.calls[0][0].content


def test_sub_rlm_prompt_shows_depth_allocation_and_parent_budget():
    root = Budget(BudgetLimits(max_cost_usd=1.0, max_tokens=10_000, max_depth=2))
    child = root.allocate(0.5, max_iterations=3)
    text = system_prompt(child, context_type="str", context_len=10, estimate=CallEstimate(1, 0),
                         sub_chars=100, output_chars=100, sub_iterations=3)
    assert "sub-RLM at depth 1 of max 2" in text
    assert "Your budget: $0.5000, 5,000 tokens, 3 iterations" in text
    assert "your parent has $1.0000, 10,000 tokens left" in text
    assert "prefer llm_query" in text.lower() and "2-5 iterations" in text and "FINAL() promptly" in text


def test_long_histories_elide_old_outputs():
    replies = [f"```repl\nprint('{i}' * 3000)\n```" for i in range(5)] + ["FINAL(x)"]
    _, model = run(replies, max_iterations=6, history_chars=8000, output_chars=3000)
    last = model.calls[-1]
    assert "[elided]" in last[3].content
    assert "4" * 100 in last[-1].content


def test_final_var_of_an_expression_is_computed_in_the_repl():
    """The 1.5B model's ``FINAL_VAR(len(grep("ERROR")))`` outside code: the value comes from the REPL."""
    log = "".join(f"2026-03-07 18:2{i}:00 {'ERROR' if i % 2 else 'INFO'} media timeout\n" for i in range(10))
    model = ScriptedChatModel(replies=['The count.\nFINAL_VAR(len(grep("ERROR")))'])
    result = RLMEngine(model, RLMConfig(confirm_final_with_code=False, check_evidence=False)).run(
        "How many lines have the level ERROR?", log)
    assert (result.answer, result.answer_source) == ("5", "final_var")
    assert result.trace.iterations[0].executions[0].code == 'FINAL_VAR(len(grep("ERROR")))'


def test_final_var_of_an_unfinished_records_chain_is_refused_and_the_value_is_asked_for():
    """Seen on the held-out parcels family (issue 54): the model's FINAL_VAR named the ``records`` table
    itself, and its printed form ``<5,845 records (csv 5,845); ...>`` was taken as the count."""
    table = "order,status\n" + "".join(f"o-{i},{'late' if i % 3 == 0 else 'ok'}\n" for i in range(30))
    result, model = run(["```repl\nrecs = records(context)\n```\nFINAL_VAR(recs)",
                         '```repl\nlate = recs.where(status="late").count()\nprint(late)\n```',
                         "FINAL_VAR(late)"],
                        context=table, question="How many orders are late?", confirm_final_with_code=False)
    assert result.answer == "10"
    assert result.trace.iterations[0].final["refused"] == "object"
    assert "holds <30 records" in model.calls[1][-1].content


def test_a_reply_of_many_blocks_printing_much_is_shown_within_four_blocks_worth():
    """The tickets count at 400k: 36 blocks in one reply, each printing a list of lines, made a 32,572-token prompt
    against a window of 8,192; the server refused it and the run ended in an error."""
    blocks = "".join(f"```repl\nprint('line of the log ' * 300)  # {i}\n```\n" for i in range(12))
    model = ScriptedChatModel(replies=[blocks, "FINAL(done)"] * 2)
    RLMEngine(model, RLMConfig(max_iterations=2)).run("What is in the log?", "a log line\n" * 5_000)
    shown = str(model.calls[1][-1].content)
    assert len(shown) < 4 * 1_500 + 3_000 and "not shown, the blocks of this reply printed past 6,000" in shown
    assert "[block 12]" in shown
