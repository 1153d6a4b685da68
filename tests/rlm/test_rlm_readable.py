"""Issue 26, items 1, 2 and 4: what a small model reads after its code ran, and how its answer is taken.

The scripted model replays the three failures measured with the embedded 1.5B model: a
FINAL written before the output existed, a case-sensitive search finding 0 matches, and
code printing nothing.
"""

from langchain_core.messages import AIMessage

from codur.llm import ScriptedChatModel
from codur.rlm import RLMConfig, RLMEngine
from codur.rlm.bridge import ANSWER_FORMAT, ModelClient
from codur.rlm.parser import parse_json_answer, without_final

LOG = "".join(f"2026-01-0{i % 9 + 1} 10:00:{i % 60:02d} {'ERROR' if i % 7 == 0 else 'INFO'} job={i}\n"
              for i in range(1200))


def run(replies, context=LOG, question="How many ERROR lines are in the log?", **config):
    model = ScriptedChatModel(replies=list(replies))
    config.setdefault("check_evidence", False)  # the loop's own rules; the evidence checks: test_rlm_evidence.py
    result = RLMEngine(model, RLMConfig(**config)).run(question, context)
    return result, model


def feedback(model, call):
    return str(model.calls[call][-1].content)


def test_empty_output_is_said_in_words():
    _, model = run(["```repl\nhits = grep('ERROR')\n```", "FINAL(172)"])
    assert "[block 1] (your code printed nothing: print() the values you want to see)" in feedback(model, 1)


def test_a_search_written_without_print_shows_its_lines():
    """The join case: the model wrote grep("u-7502") on a line of its own and never saw the order."""
    code = "grep('job=15$')\nlen(grep('job=15$'))\nopen('n.txt', 'w').write('x')\nhits = 2\nhits"
    _, model = run([f"```repl\n{code}\n```", "FINAL(172)"])
    assert "[block 1] ['2026-01-07 10:00:15 INFO job=15']\n1\n2\n" in feedback(model, 1)  # not write()


LOOK_ALIKES = ("x\n" * 600 + "config service=billing-460 port=11111\nconfig service=prebilling-46 port=33333\n"
               "config service=billing-46-canary port=22222\n" + "y\n" * 600)
WITH_46 = LOOK_ALIKES.replace("y\n" * 600, "config service=billing-46 port=43071\n" + "y\n" * 600)
PORT = "Which port does the service billing-46 listen on?"


def test_a_search_finding_only_look_alikes_is_flagged_and_its_final_not_taken():
    """The absent case: a loose search found a look-alike's line and the model answered its port."""
    code = "line = grep('billing-46')[0]\nport = line.split('port=')[1]"
    result, model = run([f"```repl\n{code}\n```\nFINAL_VAR(port)", "FINAL(NOT PRESENT)"], context=LOOK_ALIKES,
                        question=PORT)
    text = feedback(model, 1)
    assert "grep('billing-46') -> 3 lines, none with 'billing-46' as a whole name" in text
    assert "billing-460, prebilling-46, billing-46-canary" in text and "may not be in the text" in text
    assert result.trace.iterations[0].final["refused"] == "notes" and result.answer == "NOT PRESENT"


def test_an_answer_from_a_look_alikes_line_is_refused():
    """The lookup case: the code took the first port= in the log (a look-alike's) and handed it in."""
    code = "import re\nport = re.search(r'port=(\\d+)', context).group(1)"
    result, model = run([f"```repl\n{code}\n```\nFINAL_VAR(port)", "FINAL(43071)"], context=WITH_46, question=PORT)
    assert ("11111 is on the line 'config service=billing-460 port=11111', which names billing-460, not "
            "billing-46: that is a look-alike's value") in feedback(model, 1)
    assert (result.answer, result.answer_source) == ("43071", "final_direct")


def test_a_look_alikes_whole_line_is_refused_even_on_the_last_iteration():
    """lookup 50k seed 4: FINAL_VAR of grep(...)[0], the prepayments-24 line, on the last iteration."""
    code = "line = grep('port=')[0]\nprint(line)"
    result, model = run([f"```repl\n{code}\n```\nFINAL_VAR(line)", '{"answer": "43071"}'], context=WITH_46,
                        question=PORT, max_iterations=1)
    assert result.trace.iterations[0].notes[-1] == (
        "your answer was refused: the line 'config service=billing-460 port=11111' names billing-460, not "
        "billing-46: that is a look-alike's value; find the line naming billing-46 itself, or answer NOT PRESENT "
        "if there is none")
    assert (result.answer, result.answer_source) == ("43071", "forced")


def test_a_final_var_of_one_copied_line_is_answered_from_not_taken_whole():
    """The joins handed in ['... shipped from warehouse=W-17']: the value is asked for from it."""
    log = LOG.replace("job=900\n", "shipping order=o-289 shipped from warehouse=W-17\n")
    code = "hits = grep('o-289')\nprint(hits)"
    result, model = run([f"```repl\n{code}\n```\nFINAL_VAR(hits)", '{"answer": "W-17"}'], context=log,
                        question="Which warehouse shipped the order o-289?")
    assert "hits = ['2026-01-01 10:00:00 INFO shipping order=o-289 shipped from warehouse=W-17']" in \
        feedback(model, 1)
    assert (result.answer, result.answer_source) == ("W-17", "extracted")


def test_the_first_turn_shows_what_the_whole_text_says_of_the_questions_names():
    _, model = run(["FINAL(43071)"], context=WITH_46, question=PORT)
    first = str(model.calls[0][-1].content)
    assert ("Lines naming billing-46 (1); look-alike names on other lines: billing-460, prebilling-46, "
            "billing-46-canary:\n  config service=billing-46 port=43071") in first
    orders = LOG.replace("job=5\n", "orders user=u-7502 placed order=o-289 items=4\n").replace(
        "job=900\n", "shipping order=o-289 shipped from warehouse=W-17\n")
    result, model = run(["FINAL(W-17)"], context=orders, question="Which warehouse shipped the order of u-7502?")
    assert ("Lines naming o-289, which those lines name (1):\n  2026-01-01 10:00:00 INFO shipping order=o-289 "
            "shipped from warehouse=W-17") in str(model.calls[0][-1].content)
    assert result.answer == "W-17" and "o-289" in result.trace.retrieved
    _, model = run(["FINAL(NOT PRESENT)"], context=LOOK_ALIKES, question=PORT.replace("46", "47"))
    assert "No line holds billing-47." in str(model.calls[0][-1].content)
    _, model = run(["FINAL(NOT PRESENT)"], context=LOOK_ALIKES, question=PORT)
    assert "No line names billing-46 as a whole name; look-alike names" in str(model.calls[0][-1].content)
    _, model = run(["FINAL(1)"])
    assert "question's names" not in str(model.calls[0][-1].content)  # "How many ERROR lines": no such name


def test_after_a_search_among_look_alikes_the_whole_name_line_is_the_hint():
    _, model = run(["```repl\nprint(grep('billing-46'))\n```", "FINAL(43071)"], context=WITH_46, question=PORT)
    assert ("only this one names the name of the question itself (the others are look-alikes): "
            "config service=billing-46 port=43071. If it answers the question") in feedback(model, 1)


def test_a_search_among_look_alikes_without_final_is_answered_from_its_output():
    """The lookup case: the model grepped the service, saw its line among look-alikes, wrote no FINAL."""
    result, model = run(["```repl\nprint(grep('billing-46'))\n```", '{"answer": "43071"}'], context=WITH_46,
                        question=PORT)
    assert (result.answer, result.answer_source) == ("43071", "extracted")
    assert "only this one names the name of the question itself" in feedback(model, 1)


def test_a_forced_answer_on_a_look_alikes_line_is_asked_again():
    result, model = run(["```repl\nprint(len(context))\n```", '{"answer": "11111"}',
                         '{"answer": "NOT PRESENT"}'], context=LOOK_ALIKES, question=PORT, max_iterations=1)
    assert (result.answer, result.answer_source) == ("NOT PRESENT", "forced")
    assert "note: 11111 was refused: 11111 is on the line 'config service=billing-460 port=11111'" in \
        feedback(model, 2)


def test_a_search_printing_only_look_alikes_of_a_name_the_text_lacks_asks_for_not_present():
    """The absent case: the model printed pricing-21's look-alikes and handed in nothing (or their lines)."""
    result, model = run(["```repl\nprint(grep('billing-46'))\n```", '{"answer": "NOT PRESENT"}'],
                        context=LOOK_ALIKES, question=PORT)
    hint = ("The lines printed name only longer names (billing-460, prebilling-46, billing-46-canary), and no line "
            "of the whole text names billing-46 itself: their values are not billing-46's. If the question asks "
            "about billing-46, the text does not hold it: reply with just FINAL(NOT PRESENT).")
    assert hint in feedback(model, 1)  # the JSON answer turn
    assert (result.answer, result.answer_source) == ("NOT PRESENT", "extracted")
    code = "answer = grep('billing-46')\nprint(answer)"
    result, model = run([f"```repl\n{code}\n```\nFINAL_VAR(answer)", "FINAL(NOT PRESENT)"],
                        context=WITH_46.replace("service=billing-46 port", "service=billing-45 port"), question=PORT)
    assert hint in feedback(model, 1) and result.answer == "NOT PRESENT"  # the next turn, FINAL_VAR refused
    _, model = run(["```repl\nprint(grep('service=billing-46'))\n```", "FINAL(43071)"],
                   context=WITH_46.replace("config service=billing-46 port", "billing-46 moved to port"),
                   question=PORT)
    text = feedback(model, 1)  # the search printed only look-alikes, but a line it missed names billing-46
    assert "billing-46-canary port=22222" in text and "FINAL(NOT PRESENT)" not in text


def test_not_present_for_a_name_the_text_holds_is_refused_once():
    result, model = run(["FINAL(NOT PRESENT)", "FINAL(43071)"], context=WITH_46, question=PORT)
    assert ("your answer was refused: 1 line(s) of the text name billing-46 itself, the first: 'config "
            "service=billing-46 port=43071'; read what they say") in feedback(model, 1)
    assert result.answer == "43071"
    result, _ = run(["FINAL(not found)"] * 2, context=WITH_46, question=PORT)
    assert (result.answer, len(result.trace.iterations)) == ("not found", 2)  # insisted: accepted


def test_a_forced_value_for_a_name_the_text_never_holds_becomes_not_present():
    """The absent case at the iteration limit: the model gave a look-alike's port twice."""
    result, model = run(["```repl\nprint(len(context))\n```", '{"answer": "11111"}', '{"answer": "11111"}'],
                        context=LOOK_ALIKES, question=PORT, max_iterations=1)
    assert (result.answer, result.answer_source) == ("NOT PRESENT: no line of the text names billing-46", "forced")
    assert any("the forced answer was replaced: the model answered '11111' twice" in w for w in result.trace.warnings)


def test_a_forced_not_present_for_a_name_the_text_holds_is_asked_again_with_its_line():
    """A held-out join (tickets): the model's searches missed, and the forced answer said NOT PRESENT."""
    result, model = run(["```repl\nprint(len(grep('service billing-46')))\n```", '{"answer": "NOT PRESENT"}',
                         '{"answer": "43071"}'], context=WITH_46, question=PORT, max_iterations=1)
    assert "note: NOT PRESENT was refused: 1 line(s) of the text name billing-46 itself, the first: 'config " \
        "service=billing-46 port=43071'" in feedback(model, 2)
    assert (result.answer, result.answer_source) == ("43071", "forced")


def test_an_answer_from_a_line_unrelated_to_the_question_is_refused_once():
    """The absent case: the first port= of the log, on a line naming another service, handed in unseen."""
    log = WITH_46.replace("x\n" * 600, "x\n" * 300 + "config service=ledger port=19999\n" + "x\n" * 300)
    code = "import re\nport = re.search(r'port=(\\d+)', context).group(1)"
    result, model = run([f"```repl\n{code}\n```\nFINAL_VAR(port)"] * 2 + ["FINAL(43071)"], context=log,
                        question=PORT)
    assert ("19999 is on the line 'config service=ledger port=19999', which names no billing-46: that line "
            "does not answer the question") in feedback(model, 1)
    assert (result.answer, result.answer_source) == ("19999", "final_var")  # insisted: a link may be unprinted


def test_a_placeholder_answer_and_a_list_passed_to_a_helper_are_said_plainly():
    result, model = run(["```repl\nhits = grep('job=15$')\nprint(lines_with(hits))\n```", "FINAL(answer)",
                         "FINAL(172)"])
    assert "error: TypeError: lines_with() takes a str pattern, not a list of 1 items" in feedback(model, 1)
    _, counted = run(["```repl\nhits = grep('ERROR')\nprint(count(hits))\n```", "FINAL(172)"])
    assert "[block 1] 172\n" in feedback(counted, 1)  # count(a list of lines) is how many there are
    assert "FINAL(answer) refused: answer is a name, not a value" in feedback(model, 2)
    assert result.answer == "172"
    last, _ = run(["```repl\nprint(count('ERROR'))\n```", "FINAL(answer)", '{"answer": "172"}'], max_iterations=2)
    assert (last.answer, last.answer_source) == ("172", "forced")  # not 'answer', even on the last iteration


def test_an_answer_repeating_the_questions_name_is_refused():
    """A split('=')[1] one field too early handed in 'billing-46 port' for the port of billing-46."""
    code = "port = grep('billing-46 port=')[0].split('=')[1]"
    log = "x\n" * 600 + "config service=billing-46 port=43071\n" + "y\n" * 600
    result, model = run([f"```repl\n{code}\n```\nFINAL_VAR(port)", "FINAL(43071)"], context=log, question=PORT)
    assert "billing-46 port repeats the question's billing-46; answer with the value itself" in feedback(model, 1)
    assert result.answer == "43071"


def test_a_value_for_a_name_the_text_never_holds_is_refused():
    """The absent case: the question's service is not in the log (only look-alikes), the model handed in a port."""
    code = "port = grep('billing-46')[0].split('port=')[1]\nprint(port)"
    result, model = run([f"```repl\n{code}\n```\nFINAL_VAR(port)", "FINAL(55555)", "FINAL(NOT PRESENT)"],
                        context=LOOK_ALIKES + "config service=ledger port=55555\n", question=PORT)
    assert "no line of the text names billing-46 itself" in feedback(model, 2)
    assert result.answer == "NOT PRESENT"


def test_a_question_asking_for_a_number_takes_a_number_or_not_present():
    from codur.rlm.prompts import fits_question

    asked = PORT + " Answer with the port number. If there is none, answer NOT PRESENT."
    assert fits_question(asked, "43071") and fits_question(asked, "NOT PRESENT")
    assert not fits_question(asked, "scheduler-57 port") and fits_question(PORT, "scheduler-57 port")


def test_a_repeated_count_is_answered_from_its_output():
    """The count case: count('ERROR') printed 32 twice and the model never wrote FINAL."""
    block = "```repl\nprint(count('ERROR'))\n```"
    result, model = run([block, block, '{"answer": "172"}'])
    assert (result.answer, result.answer_source) == ("172", "extracted") and len(model.calls) == 3


def test_a_made_up_number_after_code_ran_is_refused():
    """The join case: a failed block, then FINAL(12345) in prose, a number nothing printed."""
    result, model = run(["```repl\nprint(lines_with('warehouse')[0])\n```", "It is 12345.\nFINAL(12345)",
                         "```repl\nprint(count('ERROR'))\n```", "FINAL(172)"])
    assert "FINAL(12345) refused: that value is neither in the text nor in any output" in feedback(model, 2)
    assert result.answer == "172" and result.trace.iterations[1].final["accepted"] is False
    named, model = run(["```repl\nanswer = count('ERROR')\nprint(warehouse_id)\n```", "FINAL(warehouse_id)",
                        "FINAL(answer)"])
    assert "FINAL(warehouse_id) refused: warehouse_id is a name, not a value" in feedback(model, 2)
    assert (named.answer, named.answer_source) == ("172", "final_var")  # FINAL(answer): the variable's value


def test_a_search_with_look_alikes_shows_the_whole_name_lines():
    _, model = run(["```repl\nprint(grep('billing-46'))\n```", "FINAL(43071)"], context=WITH_46, question=PORT)
    assert ("but only 1 with 'billing-46' as a whole name; the others name billing-460, prebilling-46, "
            "billing-46-canary. The whole-name lines:\n  config service=billing-46 port=43071") in feedback(model, 1)
    clean, model = run(["```repl\nprint(grep('service=billing-46 '))\n```", "FINAL(43071)"], context=WITH_46,
                       question=PORT)
    assert "whole name" not in feedback(model, 1)


def test_a_case_sensitive_search_finding_nothing_is_flagged_with_the_count_ignoring_case():
    """The count case: `\\berror\\b` over a log that says ERROR printed 0 and the model answered 0."""
    code = "import re\nprint(len(re.findall(r'\\berror\\b', context)))"
    result, model = run([f"```repl\n{code}\n```", "```repl\nprint(count('error'))\n```", "FINAL(172)"])
    text = feedback(model, 1)
    assert "[block 1] 0\n" in text
    assert "matches 0 times as written but 172 times ignoring case" in text
    assert result.trace.iterations[0].executions[0].notes  # kept in the trace too
    assert "[block 1] 172\n" in feedback(model, 2) and "note:" not in feedback(model, 2)


def test_a_helper_finding_nothing_in_a_large_context_is_flagged_with_its_size():
    _, model = run(["```repl\nprint(count('FATAL'))\n```", "FINAL(0)"])
    assert f"note: count('FATAL') -> 0 matches in {len(LOG):,} characters: check case and spelling" \
        in feedback(model, 1)


def test_a_final_var_from_a_search_that_found_nothing_is_refused():
    result, model = run(["```repl\nanswer = count('FATAL ERROR')\n```\nFINAL_VAR(answer)",
                         "```repl\nanswer = count('ERROR')\nprint(answer)\n```\nFINAL_VAR(answer)"])
    assert (result.answer, result.answer_source) == ("172", "final_var")
    assert "FINAL_VAR(answer) refused" in feedback(model, 1) and "0 matches" in feedback(model, 1)


def test_final_none_is_not_an_answer_while_iterations_are_left():
    """The join case: the code printed nothing and the model concluded FINAL(None)."""
    result, model = run(["```repl\nx = []\n```", "FINAL(None)", "FINAL(172)"])
    assert result.answer == "172"
    assert "FINAL(None) is not an answer" in feedback(model, 2)


def test_the_last_line_of_an_exception_is_always_shown():
    code = "def f(n):\n    return f(n + 1) if n < 40 else {}['missing key']\nf(0)"
    _, model = run([f"```repl\n{code}\n```", "FINAL(1)"], output_chars=300)
    text = feedback(model, 1)
    assert "error: KeyError: 'missing key'" in text and "[traceback cut:" in text


def test_a_single_number_answering_how_many_is_said_in_the_prompt():
    _, model = run(["```repl\nprint(count('ERROR'))\n```", "FINAL(172)"])
    assert "Your last output is a single number, 172" in feedback(model, 1)
    _, model = run(["```repl\nprint(count('ERROR'))\n```", "FINAL(172)"], question="Summarise the log.")
    assert "single number" not in feedback(model, 1)


def test_budget_exhausted_asks_for_a_json_answer():
    result, model = run(["```repl\nprint(count('ERROR'))\n```", '{"answer": 172}'], max_iterations=1)
    assert (result.answer, result.answer_source) == ("172", "forced")
    assert model.call_kwargs[1]["response_format"] == ANSWER_FORMAT
    assert '{"answer": "..."}' in feedback(model, 1)
    assert result.trace.iterations[-1].extraction["kind"] == "forced"


def test_json_answers_are_read_bare_wrapped_or_typed():
    assert parse_json_answer('{"answer": "43071"}') == "43071"
    assert parse_json_answer('Sure! ```json\n{"answer": 172}\n```') == "172"
    assert parse_json_answer('{"other": 1} then {"answer": ["a", "b"]}') == '["a", "b"]'
    assert parse_json_answer('{"answer": null}') is None
    assert parse_json_answer("FINAL(7)") is None


def test_without_final_keeps_code_and_prose():
    reply = "I search.\n```repl\nprint(grep('x'))\n```\nFINAL(39)\nFINAL_VAR(y)"
    assert without_final(reply) == "I search.\n```repl\nprint(grep('x'))\n```"


class _NoSchemaModel(ScriptedChatModel):
    """A chat model whose server refuses response_format (as a TypeError from the client)."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        if "response_format" in kwargs:
            raise TypeError("unexpected keyword argument 'response_format'")
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_a_model_refusing_the_schema_is_asked_again_without_it():
    model = _NoSchemaModel(replies=["FINAL(43071)"])
    text, usage, structured = ModelClient(model, "scripted").invoke_json([AIMessage("q")])
    assert (text, structured, usage.calls) == ("FINAL(43071)", False, 1)
    assert model.call_kwargs == [{}]
    engine = RLMEngine(_NoSchemaModel(replies=["```repl\nprint(count('ERROR'))\n```", "It is 172."]),
                       RLMConfig(max_iterations=1))
    result = engine.run("How many ERROR lines?", LOG)
    assert (result.answer, result.answer_source) == ("172", "forced")  # the number alone (issue 54)
    assert result.trace.iterations[-1].extraction["structured"] is False


# -- item 3: the answer check ----------------------------------------------------------------------

def test_an_answer_the_outputs_do_not_support_goes_back_to_the_loop_with_the_reason():
    result, model = run([
        "```repl\nprint(count('ERROR'))\n```",
        "FINAL(170)",
        '{"supported": false, "answer": "172", "reason": "the output printed 172, not 170"}',
        "FINAL(172)",
    ], check_answers=True)
    assert (result.answer, result.answer_source) == ("172", "final_direct")
    check_prompt = str(model.calls[2][0].content)
    assert len(model.calls[2]) == 1  # a fresh short prompt, not the history
    assert "Proposed answer: 170" in check_prompt and "[iteration 1 block 1]\n172" in check_prompt
    assert model.call_kwargs[2]["response_format"]["json_schema"]["name"] == "answer_check"
    assert "not supported: the output printed 172, not 170" in feedback(model, 3)
    second = result.trace.iterations[1]
    assert second.check["supported"] is False and not second.final["accepted"]
    assert result.trace.iterations[2].check is None  # one refusal per run (max_check_refusals=1): 172 stands


def test_a_supported_answer_is_accepted_after_one_check_and_no_check_by_default():
    result, model = run(["```repl\nprint(count('ERROR'))\n```", "FINAL(172)",
                         '{"supported": true, "answer": "172", "reason": "printed"}'], check_answers=True)
    assert (result.answer, len(model.calls)) == ("172", 3)
    assert result.trace.iterations[1].check["supported"] is True
    result, model = run(["```repl\nprint(count('ERROR'))\n```", "FINAL(172)"])
    assert (result.answer, len(model.calls)) == ("172", 2) and result.trace.iterations[1].check is None


def test_an_unreadable_check_lets_the_answer_stand():
    result, _ = run(["```repl\nprint(count('ERROR'))\n```", "FINAL(172)", "I think so"], check_answers=True)
    assert result.answer == "172" and result.trace.iterations[1].check["supported"] is None


def test_a_final_var_of_several_items_is_shown_and_the_answer_asked_from_it():
    """The model put every look-alike line in its variable without seeing them: they are shown first."""
    log = ("x\n" * 600 + "config service=billing-460 port=11111\nconfig service=billing-46 port=43071\n"
           "config service=billing-4 port=22222\n" + "y\n" * 600)
    result, model = run(["```repl\nanswer = grep('config service')\n```\nFINAL_VAR(answer)", '{"answer": "43071"}'],
                        context=log, question="Which port does the service billing-46 listen on?")
    assert (result.answer, result.answer_source) == ("43071", "extracted")
    shown = str(model.calls[1][-1].content)
    assert "[FINAL_VAR(answer)] answer holds 3 items:" in shown and "billing-46 port=43071" in shown
    assert "FINAL_VAR" not in str(model.calls[1][-2].content)
    one, _ = run(["```repl\nanswer = grep('billing-46 ')\n```\nFINAL_VAR(answer)"], context=log,
                 question="Which port does the service billing-46 listen on?")
    assert (one.answer, one.answer_source) == ("config service=billing-46 port=43071", "final_var")  # unwrapped


def test_a_search_whose_count_changes_with_case_is_flagged_and_its_final_not_taken():
    mixed = LOG.replace(" ERROR job=1", " error job=1")
    lower = sum(1 for line in mixed.splitlines() if " error " in line)
    code = "import re\nprint(len(re.findall(r'\\bERROR\\b', context)))"
    result, model = run([f"```repl\n{code}\n```\nFINAL({172 - lower})", "FINAL(172)"], context=mixed)
    text = feedback(model, 1)
    assert 0 < lower < 172 and f"[block 1] {172 - lower}\n" in text
    assert f"matches {172 - lower} times as written but 172 times ignoring case" in text
    assert result.trace.iterations[0].extraction is None  # a questioned output is not answered from
    assert f"FINAL({172 - lower})" not in str(model.calls[1][-2].content)
    assert result.answer == "172"
    _, model = run(["```repl\nimport re\nprint(len(re.findall(r'error', context, re.I)))\n```", "FINAL(172)"],
                   context=mixed)
    assert "note:" not in feedback(model, 1)  # the code ignores case itself


def _fault_server_module():
    import importlib.util
    import sys
    from pathlib import Path

    if "codur_fault_server" not in sys.modules:  # tests/faults/conftest.py loads it under this name too
        path = Path(__file__).resolve().parents[1] / "faults" / "server.py"
        spec = importlib.util.spec_from_file_location("codur_fault_server", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules["codur_fault_server"]


def test_the_json_answer_reaches_an_openai_compatible_server_as_a_json_schema_response_format():
    """The embedded model's server is llama.cpp's OpenAI-compatible one: the same request goes over HTTP."""
    from langchain_core.messages import HumanMessage

    from codur.llm.deadline import DeadlineChatOpenAI

    faults = _fault_server_module()
    server = faults.FaultServer().start()
    try:
        model = DeadlineChatOpenAI(base_url=server.base_url, api_key="test", model="m", max_retries=0, timeout=10)
        client = ModelClient(model, "m")
        server.play(faults.ok('{"answer": "43071"}'))
        text, usage, structured = client.invoke_json([HumanMessage("Which port?")])
        assert structured and parse_json_answer(text) == "43071" and usage.total_tokens == 15
        fmt = server.requests[-1][1]["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"]["required"] == ["answer"]
        server.play(faults.status(400, "response_format is not supported"), faults.ok("FINAL(43071)"))
        text, _, structured = client.invoke_json([HumanMessage("Which port?")])
        assert (text, structured) == ("FINAL(43071)", False)
        assert "response_format" not in server.requests[-1][1]
    finally:
        server.close()


# -- item 3, optional part: a vote over trajectories (self-consistency) ------------------------------

def test_vote_over_trajectories_at_different_temperatures():
    from codur.rlm.vote import vote_key

    model = ScriptedChatModel(replies=["FINAL(The count is 1,172.)", "FINAL(8)", "FINAL(1172)"])
    result = RLMEngine(model, RLMConfig(check_evidence=False)).run_voted("How many?", LOG, k=3)
    assert result.votes == ("1172", "8", "1172")  # each the number alone (issue 54)
    assert result.answer == "1172" and result.answer_source == "final_direct"
    assert [kw.get("temperature") for kw in model.call_kwargs] == [0.0, 0.7, 1.0]
    assert "self-consistency vote over 3 trajectories: 2 for this answer" in result.trace.warnings
    assert vote_key("The port is 43,071.") == vote_key("43071") == "43071" and vote_key("None") is None
    assert vote_key("45497.0") == vote_key("45497") == "45497" != vote_key("45497.5")


def test_vote_stops_at_a_majority_and_at_the_budget():
    model = ScriptedChatModel(replies=["FINAL(7)", "FINAL(7.)"])
    result = RLMEngine(model, RLMConfig(check_evidence=False)).run_voted("q?", "text", k=3)
    assert result.votes == ("7", "7") and len(model.calls) == 2
    spent = ScriptedChatModel(replies=["FINAL(" + "x" * 400 + ")"] * 3)
    result = RLMEngine(spent, RLMConfig(max_tokens=150, check_evidence=False)).run_voted("q?", "text", k=3)
    assert len(result.votes) == 1  # the first trajectory spent the tokens the vote had


def test_a_final_var_that_is_not_the_kind_of_answer_asked_is_shown_first():
    """The join case: the model's variable holds the order line, not the warehouse the question asks for."""
    log = ("x\n" * 600 + "INFO orders user=u-4821 placed order=o-99127 items=3 via the mobile checkout flow today\n"
           + "y\n" * 600 + "INFO shipping order=o-99127 shipped from warehouse=W-17\n")
    result, model = run(["```repl\nanswer = grep('u-4821')[0]\n```\nFINAL_VAR(answer)", '{"answer": ""}',
                         "```repl\nanswer = grep('o-99127')[-1].split('=')[-1]\n```\nFINAL_VAR(answer)"],
                        context=log, question="From which warehouse was the order placed by user u-4821 shipped?")
    assert (result.answer, result.answer_source) == ("W-17", "final_var")
    shown = str(model.calls[1][-1].content)
    assert "[FINAL_VAR(answer)] answer = INFO orders user=u-4821 placed order=o-99127" in shown
    assert "does not hold the answer yet" in str(model.calls[2][-1].content)


def test_fits_question():
    from codur.rlm.prompts import fits_question

    line = "2026-03-01 15:37:06 INFO orders user=u-7502 placed order=o-28982 items=4"
    log = f"x\n{line}\ny\n"
    assert fits_question("How many lines?", "172") and not fits_question("How many lines?", "172 lines")
    assert fits_question("Which warehouse?", "W-17", log) and not fits_question("Which warehouse?", line, log)
    assert fits_question("Which warehouse?", "The order went out of warehouse W-17 on the first of March.", log)
    assert fits_question("What port?", "a\nb") and fits_question("Summarise the log.", line, log)


def test_a_final_var_of_lines_of_the_input_is_shown_but_an_answer_in_several_lines_stands():
    two = "\n".join(LOG.splitlines()[7:9])
    result, model = run([f"```repl\nanswer = {two!r}\n```\nFINAL_VAR(answer)", '{"answer": "2"}'],
                        question="Which jobs failed?")
    assert "answer holds 2 items" in str(model.calls[1][-1].content) and result.answer_source == "extracted"
    prose = "The jobs failed because of timeouts.\nThey were retried later."
    result, _ = run([f"```repl\nanswer = {prose!r}\n```\nFINAL_VAR(answer)"], question="Which jobs failed?")
    assert (result.answer, result.answer_source) == (prose, "final_var")


def test_an_extraction_reply_with_new_code_and_a_final_gives_no_answer():
    """A model that ignores the schema and writes code again: its FINAL is premature again."""
    again = "```repl\nprint(count('ERROR'))\n```\nFINAL(1)"
    result, model = run(["```repl\nprint(grep('job=7$'))\n```\nFINAL(3)", again, "FINAL(172)"])
    assert (result.answer, result.answer_source) == ("172", "final_direct")
    assert result.trace.iterations[0].extraction["answer"] is None
    assert "does not hold the answer yet" in feedback(model, 2)


def test_final_var_called_in_code_hands_in_the_value_the_code_computed():
    """The smoke lookup: a 1.5B model writes FINAL_VAR(port) inside its code block, six times over
    when the REPL refused it; now the call ends the block and its value is the answer."""
    log = "config service=billing-12 port=11111\n" * 50 + "config service=billing-46 port=43071\n" + "x\n" * 50
    code = ("import re\nm = re.search(r'service=billing-46 port=(\\d+)', context)\n"
            "if m:\n    port = m.group(1)\n    FINAL_VAR(port)\nelse:\n    FINAL_VAR('NOT PRESENT')\n"
            "print('not reached')")
    result, model = run([f"```repl\n{code}\n```", "never played"], context=log,
                        question="Which port does billing-46 listen on?")
    assert (result.answer, result.answer_source) == ("43071", "final_var")
    execution = result.trace.iterations[0].executions[0]
    assert execution.submitted == "FINAL_VAR" and execution.error is None and execution.stdout == ""
    assert len(model.calls) == 1


def test_final_in_code_survives_the_models_own_except_and_takes_a_variable_name_too():
    code = "try:\n    total = count('ERROR')\n    FINAL_VAR('total')\nexcept Exception:\n    print('swallowed')"
    result, _ = run([f"```repl\n{code}\n```"])
    assert (result.answer, result.answer_source) == ("172", "final_var")
    result, _ = run(["```repl\nFINAL(count('ERROR'))\n```"])
    assert result.answer == "172"


def test_not_present_handed_in_by_code_whose_search_found_nothing_is_refused_once():
    """A wrong search (the case) falls to the else branch: the zero-match note questions it, so the
    code's NOT PRESENT is not taken; the model searches again."""
    code = "if 'error' in context:\n    FINAL(count('error'))\nelse:\n    FINAL('NOT PRESENT')"
    result, model = run([f"```repl\n{code}\n```", "```repl\nFINAL(count('ERROR'))\n```"])
    first = result.trace.iterations[0]
    assert first.final["refused"] == "notes" and not first.final["accepted"]
    assert "matches 0 times as written but 172 times ignoring case" in feedback(model, 1)
    assert "'NOT PRESENT'" not in " ".join(first.executions[0].notes)  # an answer's literal is not a search
    assert (result.answer, len(model.calls)) == ("172", 2)


def test_a_pattern_assigned_to_a_name_and_found_nowhere_questions_the_codes_not_present():
    """The smoke lookup, measured: `pattern = r'checkout-41\\s+listen\\s+on...'` matched nothing (the
    log says `service=checkout-41 port=...`) and the code's else branch handed in NOT PRESENT."""
    log = "config service=checkout-12 port=11111\n" * 50 + "config service=checkout-41 port=41468\n" + "x\n" * 50
    code = ("import re\npattern = r'checkout-41\\s+listen\\s+on\\s+(\\d+)'\nmatch = re.search(pattern, context)\n"
            "if match:\n    FINAL_VAR(match.group(1))\nelse:\n    FINAL_VAR('NOT PRESENT')")
    result, model = run([f"```repl\n{code}\n```", "```repl\nprint(grep('checkout-41 '))\n```", "FINAL(41468)"],
                        context=log, question="Which port does checkout-41 listen on?")
    assert result.trace.iterations[0].final["refused"] == "notes"
    assert "0 matches in" in feedback(model, 1) and "checkout-41\\\\s+listen" in feedback(model, 1)
    # where the search's plain part is, so the model sees the log's real format
    assert "its part 'checkout-41' is on 1 line, e.g.: config service=checkout-41 port=41468" in feedback(model, 1)
    assert result.answer == "41468"


def test_a_reply_repeating_a_refused_one_is_refused_again_and_the_next_call_samples_warmer():
    """The smoke lookup, measured again: the 1.5B model sent the refused reply back word for word and
    its NOT PRESENT was taken the second time. A repeat is no new search: refused again, and the call
    after a repeat runs at ``repeat_temperature`` (then back to the run's own)."""
    code = ("pattern = r'\\berror\\s+code'\nimport re\nm = re.search(pattern, context)\n"
            "FINAL(m.group(0) if m else 'NOT PRESENT')")
    reply = f"```repl\n{code}\n```"
    result, model = run([reply, reply, "```repl\nprint(count('ERROR'))\n```", "FINAL(172)"])
    first, second = result.trace.iterations[:2]
    assert first.final["refused"] == second.final["refused"] == "notes" and second.repeated
    assert result.answer == "172"
    temperatures = [kwargs.get("temperature") for kwargs in model.call_kwargs]
    assert temperatures == [None, None, 0.8, None]


def test_on_the_last_iteration_a_flagged_search_ends_in_the_forced_answer_not_in_its_final():
    code = "import re\nhits = re.findall(r'\\berror\\s+code', context)\nFINAL(len(hits))"
    result, model = run([f"```repl\n{code}\n```", '{"answer": "172"}'], max_iterations=1)
    assert result.trace.iterations[0].final["refused"] == "notes"
    assert (result.answer, result.answer_source) == ("172", "forced")
    forced = model.calls[1]  # one prompt: the question and the printed evidence, not the conversation
    assert len(forced) == 1 and "note: " in forced[0].content and "0 matches in" in forced[0].content
    assert "FINAL(len(hits))" not in forced[0].content


def test_the_forced_answer_reads_outputs_and_notes_once_not_the_models_own_guesses():
    reply = "```repl\nprint(grep('job=7 '))\nguess = 'NOT PRESENT'\n```"
    result, model = run([reply, reply, '{"answer": "7"}'], max_iterations=2,
                        question="Which job number is on the first ERROR line?")
    prompt = model.calls[2][0].content
    assert len(model.calls[2]) == 1 and prompt.count("job=7") == 1  # the same output twice is shown once
    assert "guess" not in prompt and result.answer_source == "forced"  # the code's guess is not shown
