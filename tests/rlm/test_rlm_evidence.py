"""Issue 40: answers judged by what the model's own code printed, counts checked by a second program,
every hop of a join printed, "not present" only after a search that found nothing, short inputs
answered directly; and issue 38's RLM rows (batched blocks, time measured from the first call).
Scripted model; the sandbox runs for real."""

from __future__ import annotations

import json

from codur.llm import ScriptedChatModel
from codur.rlm import RLMConfig, RLMEngine
from codur.rlm.aggregates import SecondProgram, constraint_words, coverage, unnamed_values
from codur.rlm.evidence import (
    absence_unsearched,
    is_aggregate,
    searched_for,
    shown_as_result,
    string_literals,
    unsupported,
)
from codur.rlm.finals import found
from codur.rlm.notes import look_alike_note, only_longer, quoted_lines
from codur.rlm.slots import echoes_words
from codur.rlm.trace import CodeExecution
from codur.rlm.vote import vote_key


def run(replies, context, question, **config):
    model = ScriptedChatModel(replies=list(replies))
    result = RLMEngine(model, RLMConfig(**config)).run(question, context)
    return result, model


def _payments() -> str:
    """JSON lines: 3 card payments failed, memos saying 'failed card' on 4 settled ones."""
    rows = []
    for i in range(40):
        method = ("card", "wallet", "transfer")[i % 3]
        status = "failed" if i in (0, 3, 6, 1, 4) else "settled"  # card: 0, 3, 6 -> 3 failed; wallet: 1, 4
        row = {"payment": f"PAY-{100 + i}", "method": method, "status": status}
        if i in (9, 12, 15, 18):
            row["memo"] = "retry of a failed card payment"
        rows.append(json.dumps(row))
    return "\n".join(rows) + "\n"


COUNT_Q = "How many card payments have the status failed? Answer with the number."
LOOSE = "```repl\nn = len(lines_with('card', 'failed'))\nprint(n)\n```\nFINAL_VAR(n)"
PARSED = ("```repl\nimport json\nrows = [json.loads(l) for l in context.splitlines()]\n"
          "hits = [r for r in rows if r['method'] == 'card' and r['status'] == 'failed']\n"
          "print(hits[:3])\nm = len(hits)\nprint(m)\n```\nFINAL_VAR(m)")


def test_a_count_two_programs_disagree_on_is_asked_again_with_both_programs_and_their_samples():
    third = ("```repl\nk = sum(1 for l in context.splitlines() if json.loads(l)['method'] == 'card' "
             "and json.loads(l)['status'] == 'failed')\nprint(k)\n```\nFINAL_VAR(k)")
    result, model = run([LOOSE, PARSED, third], _payments(), COUNT_Q)
    assert (result.answer, result.answer_source) == ("3", "final_var")
    first_ask = str(model.calls[1][-1].content)
    assert "second program that works differently" in first_ask and "parse of the fields" in first_ask
    second_ask = str(model.calls[2][-1].content)
    assert "two programs disagree" in second_ask and "program 1 answered 7" in second_ask
    assert "lines_with('card', 'failed')" in second_ask and "r['status'] == 'failed'" in second_ask
    assert "Which constraint" in second_ask
    check = result.trace.second_program
    assert [p.answer for p in check.programs] == ["7", "3", "3"] and check.agreed  # the third agrees with the second
    assert [it.evidence and it.evidence["check"] for it in result.trace.iterations] == \
        ["second_program", "second_program", None]


def test_the_first_ask_names_the_question_values_the_first_program_filters_on_none_of():
    unfiltered = "```repl\nanswer = recs.where(status='failed').count()\nprint(answer)\n```\nFINAL_VAR(answer)"
    result, model = run([unfiltered, PARSED, "FINAL(3)"], _payments(), COUNT_Q)
    first_ask = str(model.calls[1][-1].content)
    assert "regex over the lines, without records()" in first_ask  # `recs` is the records() table
    assert "The question says 'card' (where(method='card')), which the text holds as values" in first_ask
    assert "'payments'" not in first_ask and "'status'" not in first_ask  # a plural no line holds; a field's name
    assert [p.answer for p in result.trace.second_program.programs][:2] == ["5", "3"]
    assert unnamed_values(COUNT_Q, _code(PARSED), _payments()) == []


def test_a_count_two_different_programs_agree_on_is_accepted_and_the_same_program_again_is_not():
    again = PARSED.replace("m = len(hits)", "m  =  len( hits )")  # the same program, written again
    result, model = run([PARSED, again, LOOSE.replace("lines_with('card', 'failed')",
                                                       "grep(r'\"card\".*\"status\": \"failed\"')")],
                        _payments(), COUNT_Q)
    assert (result.answer, result.answer_source) == ("3", "final_var") and len(model.calls) == 3
    assert "regex over the lines" in str(model.calls[1][-1].content)  # the first parsed fields: a regex next
    assert "must be checked by a second program" in str(model.calls[2][-1].content)  # the same code again
    assert result.trace.second_program.agreed
    assert json.loads(json.dumps(result.trace.to_dict()))["second_program"]["agreed"] is True



def test_after_a_disagreement_an_answer_given_again_with_no_new_program_is_asked_again():
    """The bench's failure: programs said 3 and 7, the model re-asserted 7 with a bare FINAL; that is no
    check. A third program that agrees with one of them settles it (a majority of independent programs)."""
    regex = ("```repl\nimport re\nhits = [l for l in context.splitlines() if re.search(r'\"method\": \"card\"', l)"
             " and re.search(r'\"status\": \"failed\"', l)]\nprint(hits[:3])\nk = len(hits)\nprint(k)\n```\n"
             "FINAL_VAR(k)")
    result, model = run([PARSED, LOOSE, "FINAL(7)", regex], _payments(), COUNT_Q)
    assert (result.answer, result.answer_source) == ("3", "final_var")
    third_ask = str(model.calls[3][-1].content)
    assert "given again with no new program" in third_ask and "3 and 7" in third_ask
    check = result.trace.second_program
    assert [p.answer for p in check.programs] == ["3", "7", "3"] and check.agreed
    assert check.asks == 2  # the ask after the re-assertion is not counted: only asks for new programs are



def test_answers_with_no_new_program_do_not_use_up_the_asks_a_disagreement_needs():
    """The bench's tickets count: the first answer re-asserted twice used up the asks, and the second
    program's wrong count was then taken unchecked. Now it gets the disagreement shown."""
    regex = ("```repl\nimport re\nhits = [l for l in context.splitlines() if re.search(r'\"method\": \"card\"', l)"
             " and re.search(r'\"status\": \"failed\"', l)]\nprint(hits[:3])\nk = len(hits)\nprint(k)\n```\n"
             "FINAL_VAR(k)")
    replies = [PARSED, "FINAL(3)", "The count is 3, so FINAL(3)", LOOSE, regex]
    result, model = run(replies, _payments(), COUNT_Q)
    assert (result.answer, result.answer_source) == ("3", "final_var")
    assert "two programs disagree" in str(model.calls[4][-1].content)
    assert [p.answer for p in result.trace.second_program.programs] == ["3", "7", "3"]


TICKETS_Q = ("How many times was a ticket resolved with the resolution duplicate? The resolution may be written "
             "in any case. Answer with the number.")


def _code(reply: str) -> str:
    """The code block of a scripted reply."""
    return reply.split("```repl\n")[1].split("```")[0]


def test_the_constraints_a_program_states_are_the_question_words_its_literals_name():
    assert constraint_words(TICKETS_Q) == {"ticket", "resolved", "resolution", "duplicate"}
    assert coverage(TICKETS_Q, 'n = count(grep("resolution=DUPLICATE"))') == 2
    assert coverage(TICKETS_Q, 'answer = count("duplicate")\nprint("duplicate count", answer)') == 1
    assert coverage(COUNT_Q, _code(PARSED)) == 3 and coverage(COUNT_Q, _code(LOOSE)) == 2  # +status


def test_programs_still_disagreeing_settle_on_the_one_that_states_more_of_the_question():
    check = SecondProgram(max_asks=2)
    check.offer("3", _code(PARSED), "3", vote_key), check.offer("7", _code(LOOSE), "7", vote_key)
    assert check.settle("7", COUNT_Q, vote_key) == "3" and check.settled == {"from": "7", "to": "3", "coverage": [3, 2]}
    assert check.settle("3", COUNT_Q, vote_key) == "3"
    tie = SecondProgram()
    tie.offer("3", "a = grep('card failed')", "3", vote_key), tie.offer("7", "b = grep('failed card')", "7", vote_key)
    assert tie.settle("7", COUNT_Q, vote_key) == "7" and tie.settled is None  # the same constraints: no ground
    one = SecondProgram()
    one.offer("3", _code(PARSED), "3", vote_key)
    assert one.settle("9", COUNT_Q, vote_key) == "9"  # one program: nothing disagrees
    assert one.settle("0", COUNT_Q, vote_key) == "3" and one.settled["to"] == "3"  # an empty result yields
    nothing = SecondProgram()
    nothing.offer("0", _code(PARSED), "0", vote_key)
    assert nothing.settle("0", COUNT_Q, vote_key) == "0" and nothing.settled is None  # the program's own 0


def test_a_disagreement_left_at_the_last_iteration_takes_the_program_stating_more_constraints():
    """The bench's tickets count, seed 1: the first program (resolution=DUPLICATE, right) and a looser second
    one (DUPLICATE anywhere, wrong) disagree; the model re-asserts the looser count to the last iteration."""
    replies = [PARSED, LOOSE, "FINAL(7)", "It is FINAL(7).", "So FINAL(7)", "The count is 7: FINAL(7)"]
    result, model = run(replies, _payments(), COUNT_Q)
    assert len(model.calls) == 6 and result.answer == "3", result.answer
    assert result.trace.second_program.settled == {"from": "7", "to": "3", "coverage": [3, 2]}
    assert json.loads(json.dumps(result.trace.to_dict()))["second_program"]["settled"]["to"] == "3"

def test_after_a_disagreement_a_third_value_shows_all_three_programs():
    check = SecondProgram()
    assert "second program" in check.offer("7", "n = len(lines_with('card'))", "7", vote_key)
    assert "two programs disagree" in check.offer("3", "m = len(parsed)", "3", vote_key)
    note = check.offer("5", "k = sum(1 for r in rows if r['s'] == 'failed')", "5", vote_key)
    assert note.startswith("three programs disagree")
    assert "program 3 answered 5" in note and "program 1 answered 7" in note
    assert check.offer("3", "", "", vote_key).startswith("3 was given again")  # no new program: asked, uncounted
    assert check.asks == 3 and check.offer("3", "j = 4", "3", vote_key) == ""  # asks spent: a new program's stands
    agreeing = SecondProgram()
    agreeing.offer("7", "a = 1", "7", vote_key), agreeing.offer("3", "b = 2", "3", vote_key)
    assert agreeing.offer("7", "b = 2", "", vote_key).startswith("7 was given again")  # program 2's code again
    assert agreeing.offer(" 7", "c = 3", "7", vote_key) == "" and agreeing.agreed  # a new program agrees with program 1

JOIN = ("x filler\n" * 300 + "orders user=u-4821 placed order=o-111 items=2\n" + "y filler\n" * 300
        + "shipping order=o-222 shipped from warehouse=W-55\n" + "shipping order=o-111 shipped from warehouse=W-17\n")
JOIN_Q = "From which warehouse was the order placed by user u-4821 shipped? Answer with the warehouse id."


def test_a_join_whose_intermediate_id_was_never_printed_is_not_accepted():
    blind = "```repl\nw = grep('warehouse=W-17')[0].split('=')[-1]\nprint(w)\n```\nFINAL_VAR(w)"
    hops = ("```repl\nplaced = grep('u-4821')\nprint(placed)\norder = placed[0].split('order=')[1].split()[0]\n"
            "line = grep(order + ' shipped')[0]\nprint(line)\nw = line.split('=')[-1]\n```\nFINAL_VAR(w)")
    result, model = run([blind, hops], JOIN, JOIN_Q)
    assert (result.answer, result.answer_source) == ("W-17", "final_var")
    refused = str(model.calls[1][-1].content)
    assert "W-17 is on printed lines that name no u-4821" in refused and "print the line naming u-4821" in refused
    assert "o-111" in result.trace.retrieved  # the engine's retrieval saw the hop; the model's code had not
    assert result.trace.iterations[0].evidence["check"] == "evidence"
    printed = ["['orders user=u-4821 placed order=o-111 items=2']", "shipping order=o-111 shipped from warehouse=W-17"]
    assert unsupported(JOIN_Q, "W-17", printed) == ""  # both hops printed
    assert "no id that the printed" in unsupported(JOIN_Q, "W-55", printed[:1] + ["order=o-222 warehouse=W-55"])


def test_a_look_alikes_printed_line_is_refused_without_a_whole_text_search():
    log = "".join(f"config service=billing-46{d} port=4{d}000\n" for d in range(3)) + "z\n" * 50 * 30
    log += "config service=billing-46 port=43071\n"
    question = "Which port does the service billing-46 listen on? Answer with the port number."
    loose = ("```repl\nline = [l for l in context.splitlines() if 'billing-46' in l][0]\nprint(line)\n"
             "p = line.split('port=')[1]\n```\nFINAL_VAR(p)")
    exact = loose.replace("'billing-46' in l", "'billing-46 ' in l")
    result, model = run([loose, exact], log, question)
    assert (result.answer, result.answer_source) == ("43071", "final_var")
    assert "which names billing-460, not billing-46: a look-alike's value" in str(model.calls[1][-1].content)


ABSENT = "".join(f"config service=billing-46{d} port=4{d}000\n" for d in range(3)) + "z\n" * 400
ABSENT_Q = ("Which port does the service billing-46 listen on? Answer with the port number. "
            "If the log gives no port for exactly billing-46, answer NOT PRESENT.")


def test_not_present_with_no_search_for_the_key_is_not_accepted_and_after_one_that_found_nothing_it_is():
    search = "```repl\nhits = grep(r'(?<![\\w-])billing-46(?![\\w-])')\nprint(hits)\n```"
    result, model = run(["FINAL(NOT PRESENT)", search, "FINAL(NOT PRESENT)"], ABSENT, ABSENT_Q)
    assert (result.answer, result.answer_source) == ("NOT PRESENT", "final_direct") and len(model.calls) == 3
    assert "NOT PRESENT is taken only after a search for billing-46" in str(model.calls[1][-1].content)
    assert result.trace.iterations[0].evidence["check"] == "absence"
    # a search that printed the name's own line does not support "not present"
    blocks = [("print(grep('checkout-41'))", "['config service=checkout-41 port=41468']\n", False)]
    assert "printed a line naming it" in absence_unsearched("Which port does checkout-41 use?", blocks)
    assert absence_unsearched("Which port does checkout-41 use?", [("print(grep('x'))", "[]", False)])
    assert absence_unsearched("Which port does checkout-41 use?", [("print(grep('checkout-41'))", "[]", True)])
    assert absence_unsearched("Which method failed most?", []) == ""  # no id asked: nothing to search


def test_the_field_the_question_asks_for_is_not_its_value():
    log = "T-5631 assigned to team meridian\n" + "noise\n" * 300
    question = "Which team was ticket T-5631 assigned to? Answer with the team name."
    code = "```repl\nline = grep('T-5631')[0]\nprint(line)\nt = line.split()[3]\n```\nFINAL_VAR(t)"
    fixed = "```repl\nline = grep('T-5631')[0]\nprint(line)\nt = line.split()[-1]\n```\nFINAL_VAR(t)"
    result, model = run([code, fixed], log, question)
    assert (result.answer, result.answer_source) == ("meridian", "final_var")
    assert "team names what the question asks for, not its value" in str(model.calls[1][-1].content)
    assert echoes_words("Which payment method failed most?", "method") and not echoes_words("Which?", "wallet")
    assert not echoes_words("Which is used more, wallet or card?", "wallet")  # an option named by the question
    assert echoes_words(question, "team name") and not echoes_words(question, "ticket")
    assert not echoes_words(question, "NOT PRESENT") and not echoes_words(question, "T-5631 team 4")


def test_short_input_is_answered_directly_and_a_long_one_runs_the_repl():
    short = "config service=billing-46 port=43071\n" * 20
    question = "Which port does the service billing-46 listen on?"
    result, model = run(["The port is 43071."], short, question, context_window_tokens=8192)
    assert (result.answer, result.answer_source, result.trace.path) == ("The port is 43071.", "final_direct", "direct")
    assert len(model.calls) == 1 and short in str(model.calls[0][0].content)  # the whole input, one call
    assert "fits the model's window" in result.trace.iterations[0].notes[0]
    assert result.trace.to_dict()["path"] == "direct"
    long = short * 400  # ~15,000 tokens: past an 8,192-token window
    result, model = run(["```repl\nprint(grep('billing-46')[0])\n```", "FINAL(43071)"], long, question,
                        context_window_tokens=8192)
    assert (result.answer, result.trace.path) == ("43071", "repl") and "```repl" not in result.answer
    result, _ = run(["FINAL(43071)"], short, question, context_window_tokens=8192, direct_answer_tokens=8000)
    assert result.trace.path == "repl" or result.answer_source != "final_direct"  # no room left for the answer


def test_the_root_prompt_measures_time_from_its_first_call_in_the_same_run():
    """Issue 38: `codur rlm` and ask_codebase build a new engine per question, so the estimates must
    come from this run's first call, not from earlier runs."""
    log = "The magic number is 48213.\n" + "filler\n" * 300
    model = ScriptedChatModel(replies=["```repl\nprint(grep('magic'))\n```", "FINAL(48213)"])
    result = RLMEngine(model, RLMConfig()).run("What is the magic number?", log)
    assert result.answer == "48213"
    assert "time not measured yet" in str(model.calls[0][0].content)
    # the system prompt stays as the run began (the server's prompt cache holds the conversation's start);
    # the time measured since, and the budget left, are in the newest user turn
    assert model.calls[1][0].content == model.calls[0][0].content
    second = str(model.calls[1][-1].content)
    assert "time not measured yet" not in second and "llm_query: ~1 model call(s), ~0s" in second
    assert "Budget left: 5 iterations" in second  # the budget line is current too
    # the system prompt states the run's budget, not a count "left" it would keep stale
    assert "Budget of this run: 6 iterations" in str(model.calls[1][0].content)
    assert "Budget left" not in str(model.calls[1][0].content)


def test_each_call_of_a_run_begins_with_the_whole_conversation_of_the_call_before():
    """A conversation only grows at its end, so the server reads only the new turns (its prompt cache):
    the embedded model reads about 70 tokens a second on 2 cores."""
    log = "".join(f"2026-03-0{d % 9 + 1} worker-{d % 4} shipped {d}\n" for d in range(200))
    model = ScriptedChatModel(replies=["```repl\nprint(len(context))\n```", "```repl\nprint(count('worker-2'))\n```",
                                       "```repl\nn = count('worker-3')\nprint(n)\n```"], default_reply="FINAL(50)")
    result = RLMEngine(model, RLMConfig(check_evidence=False)).run("How many lines name worker-3?", log)
    assert result.answer == "50" and len(model.calls) >= 4
    for before, after in zip(model.calls, model.calls[1:], strict=False):
        # all of the call before but its last turn (a question asked once, e.g. the answer from an output)
        assert [m.content for m in after[:len(before) - 1]] == [m.content for m in before[:-1]]


def test_evidence_helpers():
    assert is_aggregate("How many lines?") and is_aggregate("Which method has the most failures?")
    assert is_aggregate("How many distinct users?") and not is_aggregate("Which team owns T-1?")
    code = "import re\nn = len(re.findall(r'\\bACC-61745\\b', context))\nprint('found', n)"
    assert string_literals(code) == ["\\bACC-61745\\b"] and searched_for(code, "acc-61745")
    assert not searched_for("print('ACC-61745')", "ACC-61745")  # printing it is not searching for it
    assert searched_for("print(grep('ACC-61745'))", "ACC-61745")
    assert searched_for("k = 'ACC-61745'\ngrep(k)", "ACC-61745")
    check = SecondProgram(max_asks=1)
    assert check.offer("4", "a = 1", "4", vote_key) and check.offer("5", "b = 2", "5", vote_key) == ""
    assert unsupported("What is the magic number?", "12", ["the magic number is 48213"]).startswith("12 is on no")


def _config_line(service: str, port: int) -> str:
    """One JSON-lines record of a deploy log, about 190 characters, its port past the 120th."""
    return json.dumps({"event": "config", "service": service, "region": "eu-west-1", "owner": "platform-team",
                       "note": "rolled out by the nightly deploy of the release train", "port": port}) + "\n"


LONG = "".join(_config_line(f"billing-46{d}", 40000 + d) for d in range(3)) + "z\n" * 300 \
    + _config_line("billing-46", 43071)
LONG_Q = "Which port does the service billing-46 listen on? Answer with the port number."


def test_a_search_that_found_the_name_whole_but_printed_a_look_alike_is_answered_from_the_line_it_found():
    """The code printed the first line of a loose search (a look-alike's); the REPL's note quotes the
    line naming the service whole, in full: the answer is asked from it at once, and that quoted
    line is printed evidence for it."""
    loose = "```repl\nline = lines_with('billing-46', 'port')[0]\nprint(line)\n```\nFINAL_VAR(line)"
    result, model = run([loose, '{"answer": "43071"}'], LONG, LONG_Q)
    assert (result.answer, result.answer_source) == ("43071", "extracted")
    assert len(model.calls) == 2 and len(result.trace.iterations) == 1
    asked = str(model.calls[1][-1].content)
    assert _config_line("billing-46", 43071).strip() in asked  # the whole record, its port included
    assert result.trace.iterations[0].final["refused"] == "notes"  # the look-alike's line was not taken
    assert result.trace.iterations[0].evidence is None  # the quoted line supported the answer: no ask


def test_lines_a_search_found_are_quoted_whole_and_read_back_from_its_note():
    lines = [_config_line("billing-460", 40000).strip(), _config_line("billing-46", 43071).strip()]
    assert len(lines[1]) > 150
    note = look_alike_note("grep('billing-46')", "billing-46", lines)
    assert quoted_lines([note]) == [lines[1]] and quoted_lines(["grep('x') -> 0 matches"]) == []
    execution = CodeExecution(code="print(grep('billing-46')[0])", stdout=lines[0] + "\n", notes=[note])
    assert found(execution).splitlines() == lines
    assert unsupported(LONG_Q, "43071", [found(execution)]) == ""
    assert "43071 is on no line" in unsupported(LONG_Q, "43071", [execution.stdout])


def test_a_count_no_program_printed_is_refused_and_is_not_taken_as_a_programs_answer():
    """A count written as FINAL before its output was read (the 1.5B model's "3" when its code
    printed 293): refused as printed by no code, and not counted as a program's answer."""
    context = _payments() + json.dumps({"export": "nightly", "rows": 12}) + "\n"
    loose = "```repl\nn = len(lines_with('card', 'failed'))\nprint(n)\n```"
    parsed = PARSED.replace("r['method']", "r.get('method')").replace("r['status']", "r.get('status')")
    regex = ("```repl\nimport re\nk = len(re.findall(r'\"card\", \"status\": \"failed\"', context))\nprint(k)\n```\n"
             "FINAL_VAR(k)")
    result, model = run([loose, "FINAL(12)", parsed, regex], context, COUNT_Q)
    assert "your answer was refused: 12 is on no line your code printed" in str(model.calls[2][-1].content)
    assert (result.answer, result.answer_source) == ("3", "final_var")
    assert [p.answer for p in result.trace.second_program.programs] == ["3", "3"]


def test_a_count_left_unchecked_at_the_iteration_limit_is_the_programs_answer_not_a_forced_guess():
    """The logs count at 400k: the first program computed 293, the model never wrote a second one,
    and the forced call answered 3 from cut outputs. A program's computed answer stands."""
    idle = "```repl\nprint('checking')\n```"
    result, model = run([PARSED, idle], _payments(), COUNT_Q, max_iterations=2)
    assert (result.answer, result.answer_source) == ("3", "forced")  # PARSED's count: 3 card payments failed
    assert len(model.calls) == 2  # no forced call
    assert "the answer a program computed stands" in result.trace.iterations[-1].notes[-1]
    result, model = run([LOOSE, idle], _payments(), COUNT_Q, max_iterations=2)
    assert result.answer == "7" and len(model.calls) == 2  # lines_with('card', 'failed') counted 7: it stands


def test_a_count_written_without_its_output_is_refused_every_time_and_the_programs_count_stands():
    """The held-out parcels counts: 59 printed by the first program, then FINAL(5) written three times and
    taken once the asks ran out. A number inside a quoted input line (PAY-105) is not a printed count."""
    search = "```repl\nprint(grep('PAY-105'))\n```"
    result, model = run([PARSED, search, "FINAL(105)", "FINAL(105)", "FINAL(105)"], _payments(), COUNT_Q,
                        max_iterations=4)
    assert (result.answer, result.answer_source) == ("3", "forced")
    refused = [it.index for it in result.trace.iterations if any("105 is on no line" in n for n in it.notes)]
    assert refused == [3, 4]  # the last iteration's too
    assert [p.answer for p in result.trace.second_program.programs] == ["3"]


def test_the_forced_answer_reads_what_the_first_turn_showed():
    """The logs join at 400k: the model's code never printed the hops, the first turn's search of
    the whole text had; the forced call is shown it beside the outputs."""
    idle = "```repl\nprint(grep('placed')[0].split()[1])\n```"
    result, model = run([idle, '{"answer": "W-17"}'], JOIN, JOIN_Q, max_iterations=1)
    forced = str(model.calls[1][-1].content)
    assert "[first turn: a search of the whole text for the question's names]" in forced
    assert "orders user=u-4821 placed order=o-111" in forced and "warehouse=W-17" in forced
    assert (result.answer, result.answer_source) == ("W-17", "forced")


def test_a_search_that_found_only_look_alikes_of_a_name_the_text_lacks_is_answered_at_once():
    """The logs absent case at 400k: the code's search found only longer names and handed in a
    look-alike's value from inside the block; the REPL's note said so. NOT PRESENT is asked at once
    and taken: the code searched for the name and no printed line names it."""
    guess = ("```repl\nhits = lines_with('billing-46', 'port')\nif hits:\n    FINAL_VAR(hits[0].split('port=')[1])\n"
             "else:\n    FINAL_VAR('NOT PRESENT')\n```")
    result, model = run([guess, '{"answer": "NOT PRESENT"}'], ABSENT, ABSENT_Q)
    assert (result.answer, result.answer_source) == ("NOT PRESENT", "extracted")
    assert len(model.calls) == 2 and "no line of the whole text names billing-46" in str(model.calls[1][-1].content)
    assert only_longer(result.trace.iterations[0].executions[0].notes) == [
        ("billing-46", ["billing-460", "billing-461", "billing-462"])]


def _orders_array() -> str:
    """One pretty-printed JSON array of nested orders: 5 of the 30 from FI are paid."""
    orders = [{"order": f"O-{i}", "customer": {"id": f"C-{i % 7}", "country": "FI" if i % 3 == 0 else "SE"},
               "payment": {"status": "paid" if i % 6 == 0 else "open", "total": i}} for i in range(30)]
    return json.dumps(orders, indent=2)


def test_records_spanning_lines_get_a_parse_as_the_second_program_and_a_last_empty_result_yields():
    """A second program over a pretty-printed JSON array cannot be a regex over the lines: the builds count
    at 400k was asked for one, its grep("branch=hotfix") printed 0, and the last iteration's 0 was taken
    over the 22 that records() had computed."""
    question = "How many orders from FI are paid? Answer with the number."
    first = "```repl\nn = recs.where(country='FI', status='paid').count()\nprint(n)\n```\nFINAL_VAR(n)"
    grep_ = "```repl\nm = len(grep('country=FI', 'status=paid'))\nprint(m)\n```"
    result, model = run([first, grep_, "No build matches: FINAL(0)"], _orders_array(), question, max_iterations=3)
    ask = str(model.calls[1][-1].content)
    assert "json.loads(context)" in ask and "spans several lines" in ask and "regex over the lines, without" not in ask
    assert result.answer == "5" and (result.trace.second_program.settled or {}).get("from") == "0"


WHICH_Q = "Which payment method has the most failed payments? Answer with the method only."


def test_a_value_written_on_the_last_iteration_against_the_programs_ranking_yields_to_the_computed_answer():
    """The builds group-by at 2M (seed 0): the program printed Counter({'hotfix': 451, ..., 'develop': 60, ...})
    and [('hotfix', 451)], then the last iteration wrote FINAL(develop): a value on a printed line, but not what
    any program computed nor the top (or bottom) of the ranking printed. The program's answer stands."""
    top = ("```repl\nimport json\nfrom collections import Counter\n"
           "rows = [json.loads(l) for l in context.splitlines()]\n"
           "c = Counter(r['method'] for r in rows if r['status'] == 'failed')\nprint(c)\n"
           "best = c.most_common(1)[0][0]\nprint(best)\n```\nFINAL_VAR(best)")
    again = "```repl\nprint(c.most_common())\n```"
    result, model = run([top, again, "FINAL(wallet)"], _payments(), WHICH_Q, max_iterations=3)
    assert len(model.calls) == 3 and result.answer == "card", result.answer
    assert result.trace.second_program.settled == {"from": "wallet", "to": "card", "unbacked": True}


def test_a_value_written_from_the_top_of_a_ranking_printed_after_the_program_stands():
    """The other way round: a program computed one value (a wrong filter), code run later printed a ranking
    whose top is another, and the last iteration wrote that top: it was read from an output, so it stands."""
    loose = ("```repl\nfrom collections import Counter\n"
             "c = Counter(l.split('\"method\": \"')[1].split('\"')[0] for l in context.splitlines() "
             "if 'settled' in l)\nbest = c.most_common(1)[0][0]\nprint(best)\n```\nFINAL_VAR(best)")
    ranked = ("```repl\nimport json\nrows = [json.loads(l) for l in context.splitlines()]\n"
              "print(Counter(r['method'] for r in rows if r['status'] == 'failed').most_common())\n```")
    result, _ = run([loose, ranked, "FINAL(card)"], _payments(), WHICH_Q, max_iterations=3)
    assert result.trace.second_program.programs[0].answer != "card"
    assert result.answer == "card" and result.trace.second_program.settled is None


def test_a_result_is_a_value_printed_alone_or_where_a_ranking_puts_the_question_s_extreme():
    ranking = "Counter({'hotfix': 451, 'main': 146, 'develop': 60, 'release': 16})"
    most, least = "Which branch has the most builds?", "Which branch has the fewest builds?"
    assert shown_as_result(most, "hotfix", [ranking]) and not shown_as_result(most, "develop", [ranking])
    assert shown_as_result(least, "release", [ranking]) and not shown_as_result(least, "hotfix", [ranking])
    assert shown_as_result(most, "'hotfix'", ["[('hotfix', 451), ('main', 146)]"])
    assert shown_as_result(most, "develop", ["'develop'\n"]) and shown_as_result(most, "develop", ["develop: 60"])
    assert not shown_as_result(most, "develop", ["[('hotfix', 451)]", "'hotfix'"])
    assert not shown_as_result(most, "", [""])
    assert shown_as_result(most, "o'brien, kim", ["""Counter({"o'brien, kim": 3, 'lee': 1})"""])  # a key with , and '
    assert not shown_as_result(most, "hotfix", ["{'main': 146, 'hotfix': 451}"])  # ... its first key is no top
