"""Whether the RLM loop takes a FINAL answer: where the value comes from, whether the run's
printed outputs support it, and the answer check; a FINAL that passes ends the loop with
:class:`Finished`, one that does not leaves a note saying why (the loop goes on)."""

from __future__ import annotations

from dataclasses import dataclass

from codur.rlm import aggregates, evidence, prompts, provenance, slots, view
from codur.rlm.answers import check_answer
from codur.rlm.bridge import ModelClient
from codur.rlm.config import RLMConfig
from codur.rlm.notes import quoted_lines
from codur.rlm.parser import FinalAnswer, is_no_answer, is_object_repr
from codur.rlm.trace import AnswerSource, CodeExecution, Iteration, RLMTrace
from codur.rlm.trajectory import Trajectory
from codur.rlm.vote import vote_key


class Finished(Exception):
    """Ends the loop with an answer."""

    def __init__(self, answer: str, source: AnswerSource) -> None:
        super().__init__(answer)
        self.answer, self.source = answer, source



@dataclass(frozen=True)
class _Turn:
    """The iteration a FINAL was written in, the run it belongs to, and whether this is the last
    iteration."""

    iteration: Iteration
    run: Trajectory
    last_chance: bool


@dataclass(frozen=True)
class FinalJudge:
    """Judges one run's FINAL answers with the engine's ``config`` (:class:`RLMConfig`) and its
    model ``client`` (:class:`ModelClient`, for the answer check)."""

    config: RLMConfig
    client: ModelClient

    def finish(self, final: FinalAnswer, iteration: Iteration, run: Trajectory) -> None:
        """Raise Finished for an acceptable FINAL of ``run`` written in ``iteration``; otherwise add a
        note saying why it was refused.

        FINAL_VAR is read after the reply's code ran; a value of several items (a list, or
        several lines copied from the input), or one that is not the kind of answer the question asks for
        (:func:`prompts.fits_question`: no number for "how many", a whole line of the input), is
        ``premature`` too and is shown as an output (with its number of items) before the
        answer is asked from it. A direct FINAL in the
        same reply as code was written before the model saw the output: it is marked ``premature`` (the
        loop drops it from the history and asks for the answer from the output), unless
        ``confirm_final_with_code`` is off and the code ran without error. An empty answer
        (None, "", []) is refused while iterations are left, and so is a FINAL_VAR of a reply
        with notes (a search that found nothing) once per run (again when the reply repeats the refused
        one word for word, and on the last iteration, which then ends in the forced answer that
        reads every output and note); the notes never repeat the value.
        An answer that passes goes through :meth:`accept` (the answer check, when configured).
        """
        turn = _Turn(iteration, run, last_chance=run.budget.check("iteration") is not None)
        iteration.final = {"kind": final.kind, "value": final.value, "accepted": False}
        if final.kind == "variable":
            self._variable(final.value, turn)
        else:
            self._direct(final.value, turn)

    def _variable(self, name: str, turn: _Turn) -> None:
        """FINAL_VAR(``name``): refused (no such variable, empty, or the notes doubt its search),
        shown first (several items, or not the kind of answer asked), or accepted."""
        iteration, trace, context, last_chance = turn.iteration, turn.run.trace, turn.run.context, turn.last_chance
        assert iteration.final is not None
        flagged = any(e.notes for e in iteration.executions)
        found, value = turn.run.sandbox.get_variable(name)
        # refused once per run, but not undone by repeating the refused reply word for word; on
        # the last iteration not taken either: the forced answer then reads every output and note
        told = not iteration.repeated and any(it.final and it.final.get("refused") == "notes"
                                              for it in trace.iterations[:-1])
        doubted = flagged and (last_chance or not told)
        confirm = self.config.confirm_final_with_code and not last_chance
        if not found:
            iteration.notes.append(f"FINAL_VAR({name}) refused: no variable {name!r} in the REPL")
        elif is_object_repr(value):  # a table or function, not the value it would give
            iteration.final["refused"] = "object"
            iteration.notes.append(f"FINAL_VAR({name}) refused: {name} holds {view.clip(value or '')}, an object, "
                                   "not a value; finish the chain (.count(), .sum(field), .first()[field]), "
                                   "print the result, then FINAL_VAR it")
        elif doubted or is_no_answer(value):  # None is no answer, even last: the forced answer reads the outputs
            iteration.final["refused"] = "notes" if doubted else "empty"
            iteration.notes.append(f"FINAL_VAR({name}) refused: {name} is empty, or the notes "
                                   "above question the search it comes from; search again")
        elif confirm and (items := view.items(value or "", context)) > 1:
            iteration.final["premature"] = True
            iteration.final["shown"] = f"[FINAL_VAR({name})] {name} holds {items} items:\n{value}"
        elif confirm and not prompts.fits_question(trace.task, value or "", context):
            iteration.final["premature"] = True
            iteration.final["shown"] = f"[FINAL_VAR({name})] {name} = {value}"
        else:
            self.accept(value or "", "final_var", iteration, turn.run, last_chance=last_chance)

    def _direct(self, value: str, turn: _Turn) -> None:
        """FINAL(``value``): premature beside code, refused (no answer, a name, a value no output
        showed), read as FINAL_VAR when it names a variable, or accepted."""
        iteration, trace, context, last_chance = turn.iteration, turn.run.trace, turn.run.context, turn.last_chance
        assert iteration.final is not None
        failed = [e for e in iteration.executions if e.error]
        found_nothing = any(e.notes for e in iteration.executions) and not last_chance
        if iteration.executions and (failed or found_nothing or self.config.confirm_final_with_code):
            iteration.final["premature"] = True
            if failed:
                iteration.notes.append("a code block failed: read its error; your answer must come from an output")
        elif is_no_answer(value) and not last_chance:
            iteration.notes.append(f"FINAL({value}) is not an answer: search again (grep and count ignore case)")
        elif value.isidentifier() and turn.run.sandbox.get_variable(value)[0]:  # FINAL(port): the variable
            self.finish(FinalAnswer("variable", value), iteration, turn.run)
        elif provenance.is_placeholder(value) or not last_chance and value in provenance.names_in_code(
                e.code for it in trace.iterations for e in it.executions):  # a placeholder: even last, forced next
            iteration.notes.append(f"FINAL({value}) refused: {value} is a name, not a value, and no "
                                   f"variable holds it; compute it, then FINAL_VAR({value})")
        elif not last_chance and not iteration.executions and any(it.executions for it in trace.iterations) \
                and provenance.unseen(value, printed(trace), context):  # code ran, but not for this value
            iteration.notes.append(f"FINAL({view.clip(value)}) refused: that value is neither in the text nor "
                                   "in any output your code printed; write code that finds and prints it")
        else:
            self.accept(value, "final_direct", iteration, turn.run, last_chance=last_chance)

    def accept(self, answer: str, source: AnswerSource, iteration: Iteration, run: Trajectory, *,
               last_chance: bool) -> None:
        """Raise Finished with ``answer`` (of ``run``, given in ``iteration``), unless
        :func:`provenance.refusal` refuses it for where it comes from (on the last iteration only
        for facts about the text: then the forced answer follows) or the answer check
        (``check_answers``) says the printed outputs do not support it: then a note saying why,
        and the loop goes on.

        No check runs on the last iteration, past ``max_check_refusals`` refusals in this run, or
        when the budget allows no call (issue 26, item 3; the vote over trajectories is
        :meth:`codur.rlm.engine.RLMEngine.run_voted`). An aggregate answer taken while the
        programs behind it still disagree is settled by :meth:`codur.rlm.aggregates.SecondProgram.settle`.
        """
        trace, context = run.trace, run.context
        told = [note for it in trace.iterations[:-1] for note in it.notes]
        checked = self.config.check_evidence
        if note := provenance.refusal(trace.task, answer, context, printed(trace), told, last=last_chance,
                                      whole_text=not checked):
            iteration.notes.append(note)
            return
        if checked and (note := self.evidence_note(answer, trace, last_chance, computed=source == "final_var",
                                                   context=context)):
            iteration.notes.append(f"your answer was refused: {note}")
            iteration.evidence = {**(iteration.evidence or {}), "answer": answer, "refused": note}
            return
        refusals = sum(1 for it in trace.iterations if it.check and it.check.get("supported") is False)
        if (self.config.check_answers and not last_chance and refusals < self.config.max_check_refusals
                and run.budget.check("call") is None):
            verdict = check_answer(self.client, run, answer, iteration, self.config.check_chars)
            if verdict.get("supported") is False:
                iteration.notes.append("your answer was checked against the printed outputs and is not supported: "
                                       f"{view.clip(verdict.get('reason') or 'no reason given', 200)}. Search again")
                return
        if iteration.final is not None and source != "extracted":  # extracted: the FINAL itself was not taken
            iteration.final["accepted"] = True
        if checked and self.config.second_program and evidence.is_aggregate(trace.task):
            backed = source != "final_direct" or evidence.shown_as_result(
                trace.task, answer, [e.stdout for it in trace.iterations for e in it.executions])
            answer = trace.second_program.settle(answer, trace.task, vote_key, backed=backed)  # still disagreeing
        raise Finished(answer, source)

    def evidence_note(self, answer: str, trace: RLMTrace, last_chance: bool, *, computed: bool = False,
                      context: object = None) -> str:
        """Why ``answer`` is not taken yet, judged by what the run's code printed
        (:mod:`codur.rlm.evidence`), "" to take it. On the last iteration only a look-alike's printed
        line refuses (the forced answer follows); otherwise each check asks at most
        ``max_evidence_asks`` times per run, then the answer stands.

        - "not present": only after the code searched for the question's id and printed no line of it;
        - the field the question asks for (``team`` for "which team") is not its value;
        - an aggregate (how many, most, total...): a number printed by the code, and two programs that work
          differently must agree (:class:`codur.rlm.aggregates.SecondProgram`);
        - any other value: on a printed line naming the question's id, or every hop of a join printed;
          and, where those lines give the field the question asks for (``warehouse=W-17`` for "which
          warehouse"), that field's value, not a neighbour on the line (:func:`slots.other_field_value`).

        ``computed``: the answer is a REPL variable's value (FINAL_VAR), which counts as printed.
        ``context``: the input, whose CSV / TSV headers read the table rows the code printed without one.
        Printed here means a block's stdout and the lines of the input its searches found naming the
        searched name whole (quoted in its notes, :func:`found`), not the engine's own retrieval of the
        first turn: every value and hop must come from the run's code.
        """
        question = trace.task
        blocks = [(e.code, found(e), bool(e.error)) for it in trace.iterations for e in it.executions]
        outputs = [text for _, text, _ in blocks]
        outputs += [str(it.final["shown"]) for it in trace.iterations if it.final and it.final.get("shown")]
        outputs += [answer] if computed else []
        asked = [it.evidence.get("check") for it in trace.iterations if it.evidence and it.evidence.get("refused")]
        limit = self.config.max_evidence_asks

        def ask(check: str, note: str, every_time: bool = False) -> str:
            if not note or (asked.count(check) >= limit and not every_time):
                return ""
            trace.iterations[-1].evidence = {"check": check}
            return note

        if note := ask("evidence", _unprinted_count(question, answer, trace, computed), every_time=True):
            return note  # the last iteration too
        if last_chance:
            note = evidence.unsupported(question, answer, outputs)
            return note if "look-alike" in note else ""
        if provenance.says_absent(answer):
            return ask("absence", evidence.absence_unsearched(question, blocks))
        if slots.echoes_words(question, answer):
            return ask("echo", f"{view.clip(answer, 60)} names what the question asks for, not its value: answer "
                               "with the value itself, from a line your code printed")
        if evidence.is_aggregate(question) and self.config.second_program:
            if note := ask("field", slots.not_a_value(question, answer, context), every_time=True):  # a value of X
                return note
            if not any(it.executions for it in trace.iterations):
                return ask("evidence", f"{view.clip(answer, 60)} was computed by no code: write a program that "
                                       "computes it and prints 3 lines it counts and its result")
            return _second_program(answer, trace, context)
        return (ask("evidence", evidence.unsupported(question, answer, outputs, [code for code, _, _ in blocks]))
                or ask("field", slots.other_field_value(question, answer, outputs, context))
                or ask("field", slots.not_a_value(question, answer, context)))


def _unprinted_count(question: str, answer: str, trace: RLMTrace, computed: bool) -> str:
    """The note refusing an aggregate's number that no block of the run printed (its stdout, not an input
    line a search quoted: a ``5`` inside a quoted record is no count), "" otherwise. Asked every time,
    the last iteration too: the run then ends in the program's computed answer
    (:meth:`codur.rlm.aggregates.SecondProgram.standing`), not in a number written before its output
    was seen (the held-out parcels counts: 59 and 133 printed, then ``FINAL(5)`` and ``FINAL(622)`` taken)."""
    if not evidence.is_aggregate(question) or not evidence.is_number(answer):
        return ""
    stdout = [e.stdout for it in trace.iterations for e in it.executions]
    stdout += [str(it.final["shown"]) for it in trace.iterations if it.final and it.final.get("shown")]
    return evidence.unsupported(question, answer, stdout + ([answer] if computed else []))


def _second_program(answer: str, trace: RLMTrace, context: object) -> str:
    """The two-program check's note on an aggregate ``answer`` (:class:`codur.rlm.aggregates.SecondProgram`),
    "" to take it; the first ask also names the question's values the first program filtered on none of."""
    check = trace.second_program
    check.spanning = check.spanning or not check.programs and aggregates.records_span_lines(context)
    since = check.programs[-1].iteration if check.programs else 0
    mine = [e for it in trace.iterations if it.index > since for e in it.executions]
    note = check.offer(answer, "\n".join(e.code for e in mine), "\n".join(e.stdout for e in mine),
                       vote_key, iteration=trace.iterations[-1].index)
    if note:
        trace.iterations[-1].evidence = {"check": "second_program"}
        if len(check.programs) == 1 and isinstance(context, str):
            note += aggregates.unnamed_note(trace.task, check.programs[0].code, context)
    return note


def found(execution: CodeExecution) -> str:
    """What a block's code brought to light: its stdout and the lines of the input its searches
    found naming the searched name whole, which a note quotes when the code printed another line
    (:func:`codur.rlm.notes.quoted_lines`)."""
    quoted = quoted_lines(execution.notes)
    return "\n".join([execution.stdout.rstrip("\n"), *quoted]) if quoted else execution.stdout


def printed(trace: RLMTrace) -> list[str]:
    """What the first turn retrieved, the code's outputs, the notes on its searches, what was shown
    of a FINAL_VAR (not the engine's notes on refused answers: they quote the model's values)."""
    return [trace.retrieved, *(e.stdout for it in trace.iterations for e in it.executions),
            *(note for it in trace.iterations for e in it.executions for note in e.notes),
            *(str(it.final.get("shown")) for it in trace.iterations if it.final and it.final.get("shown"))]
