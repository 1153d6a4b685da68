"""The two JSON-schema calls of an RLM run that ask for an answer rather than code: the answer
check (does the printed evidence support a FINAL?) and the extraction (the answer from the
output so far, or the forced answer when the budget is spent)."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage

from codur.llm.replies import json_objects
from codur.rlm import prompts, provenance
from codur.rlm.bridge import CHECK_FORMAT, ModelClient
from codur.rlm.helpers import truncate
from codur.rlm.parser import is_no_answer, parse_json_answer, parse_response
from codur.rlm.trace import Iteration, RLMTrace
from codur.rlm.trajectory import Trajectory


def evidence_of(trace: RLMTrace, chars: int, *, notes: bool = False) -> str:
    """What the run's code printed, newest kept first within ``chars`` characters, in run order:
    ``[iteration i block n]`` then the output (and, with ``notes``, the notes on its searches);
    an output (with its notes) printed again later is shown once, at its latest block."""
    pieces, used, seen = [], 0, set()
    blocks = [(it.index, n, e) for it in trace.iterations for n, e in enumerate(it.executions, 1)]
    for index, n, execution in reversed(blocks):
        text = execution.stdout.strip()
        if notes and execution.notes:
            text = "\n".join([text, *(f"note: {note}" for note in execution.notes)]).strip()
        if text and text not in seen and used < chars:
            seen.add(text)
            piece = truncate(text, chars - used)
            pieces.append(f"[iteration {index} block {n}]\n{piece}")
            used += len(piece)
    return "\n".join(reversed(pieces))


def check_answer(client: ModelClient, run: Trajectory, answer: str, iteration: Iteration, check_chars: int) -> dict:
    """One JSON-schema call (:data:`codur.rlm.bridge.CHECK_FORMAT`) asking whether the outputs printed
    so far in ``run`` (newest first, ``check_chars`` characters) support ``answer``; charged to the
    run's budget and recorded in ``iteration.check``.

    Returns:
        {"supported": bool or None (unreadable reply: the answer stands), "answer", "reason", ...}.
    """
    prompt = prompts.check_prompt(run.question, answer, evidence_of(run.trace, check_chars))
    text, usage, structured = client.invoke_json([HumanMessage(prompt)], CHECK_FORMAT)
    run.budget.record(usage)
    iteration.usage = iteration.usage + usage
    verdict = next((v for v in json_objects(text) if "supported" in v), {})
    supported = verdict.get("supported")
    if isinstance(supported, str):
        supported = {"true": True, "yes": True, "false": False, "no": False}.get(supported.strip().lower())
    iteration.check = {"answer": answer, "supported": supported if isinstance(supported, bool) else None,
                       "value": verdict.get("answer"), "reason": verdict.get("reason"), "response": text,
                       "structured": structured, "usage": usage.to_dict()}
    return iteration.check


def extract_answer(client: ModelClient, messages: list[BaseMessage], run: Trajectory, iteration: Iteration,
                   kind: str) -> str | None:
    """One JSON-schema call (``{"answer": ...}``, :meth:`ModelClient.invoke_json`) on ``messages``
    (their last one asks for the answer); the answer, or None when the reply holds none (empty,
    None-like, or unreadable).

    A reply that is not JSON (a model without the schema) is read as FINAL(...) /
    FINAL_VAR(...) (a variable of the run's REPL; after an output, only when it holds no new
    code: that FINAL would be premature again) and, for ``kind`` ``forced``, as its plain text.
    Recorded in ``iteration.extraction``; its usage is charged to the run's budget and the iteration.
    """
    text, usage, structured = client.invoke_json(messages)
    run.budget.record(usage)
    iteration.usage = iteration.usage + usage
    answer = parse_json_answer(text)
    parsed = parse_response(text)
    if answer is None and (kind == "forced" or not parsed.code_blocks):  # a FINAL beside new code: premature
        if parsed.final and parsed.final.kind == "variable":
            found, value = run.sandbox.get_variable(parsed.final.value)
            answer = value if found else None
        elif parsed.final:
            answer = parsed.final.value
        elif kind == "forced" and not text.lstrip().startswith("{"):
            answer = parsed.thinking or text.strip()
    answer = None if answer is None or (kind != "forced" and is_no_answer(answer)) else answer.strip()
    iteration.extraction = {"kind": kind, "response": text, "answer": answer, "structured": structured,
                            "usage": usage.to_dict()}
    return answer


def forced_answer(client: ModelClient, run: Trajectory, reason: str, evidence: str,
                  iteration: Iteration) -> tuple[str | None, str]:
    """The forced answer when ``run``'s budget is spent (``reason``: which limit): one JSON-schema
    call on ``evidence`` (the run's printed outputs and notes, :func:`prompts.forced_turn`), asked
    once more with the reason when
    the answer sits on a look-alike's line, is a value for a name the text does not hold, or says
    "not present" of a name the text holds (:mod:`codur.rlm.provenance`). When the text holds none
    of the question's names and the model still gives a value, the answer is what the engine's
    search of the whole text found, "NOT PRESENT: no line of the text names ...". Returns the
    answer and, when it was replaced, the warning saying so ("" otherwise)."""
    question, context = run.question, run.context
    answer = extract_answer(client, [HumanMessage(prompts.forced_turn(question, reason, evidence))], run,
                            iteration, "forced")
    if answer and (note := provenance.look_alike_source(question, answer, context)
                   or provenance.nameless(question, answer, context)
                   or provenance.named_after_all(question, answer, context)):
        iteration.notes.append(f"forced answer refused: {note}")
        evidence = f"{evidence}\nnote: {answer} was refused: {note}"
        answer = extract_answer(client, [HumanMessage(prompts.forced_turn(question, reason, evidence))], run,
                                iteration, "forced") or answer
    if answer and provenance.nameless(question, answer, context):
        names = " or ".join(provenance.key_names(question))
        warning = (f"the forced answer was replaced: the model answered {answer[:80]!r} twice, but no line of the "
                   f"text names {names}")
        iteration.notes.append(warning)
        return f"NOT PRESENT: no line of the text names {names}", warning
    return answer, ""
