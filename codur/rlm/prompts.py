"""Prompts of the RLM loop: the system prompt (root and sub-RLM), the user turns, the JSON answer
turn, the forced answer, the answer check.

Kept short: the embedded 1.5B model processes ~70 prompt tokens/s. The protocol
(```repl blocks, FINAL / FINAL_VAR outside them) is restated in every user turn,
which small models need (the embedded model is a 1.5B one). Templates use ``str.format`` with
named fields, so a missing variable fails loudly (KeyError).
After Zhang, Kraska & Khattab, "Recursive Language Models" (2025), appendix prompts.
"""

from __future__ import annotations

import math
import re

from codur.rlm import provenance
from codur.rlm.budget import Budget
from codur.rlm.estimate import DIRECT_CHARS_PER_TOKEN, CallEstimate
from codur.rlm.notes import QUOTED_LINE_CHARS

SYSTEM = """\
You answer questions about a long text stored in the Python variable `context` \
({context_type}, {context_len:,} characters): too long to read at once. Explore it by writing \
Python in ```repl blocks; the code runs and you see what it prints (up to {output_chars:,} \
characters per block).

Functions ready in the REPL (searches ignore case; a pattern is a regex):
- grep(pattern) -> list[str]: the matching lines. grep("port=")
- count(pattern) -> int: how many lines match. count("ERROR")
- lines_with(*words) -> list[str]: lines holding every word. lines_with("billing", "port")
- between(start, end) -> str: the text after start up to end. between("[config]", "[end]")
- chunks(n) -> list[str]: context cut into n pieces. parts = chunks(8)
- search_context(pattern, window=150) -> list[str]: matches with the text around them
- count_matches(pattern) -> int: matches (not lines); chunk_text(size=20000) -> list[str]
- extract_sections() -> dict: heading -> body; extract_json(text) -> the first JSON in text
- llm_query(prompt) -> str: ask a model about text you pass (under ~{sub_chars:,} chars). {llm_cost}
- rlm_query(task, context=None) -> str: a sub-RLM with its own REPL, for a piece that needs several \
steps. {rlm_cost}
- batch_rlm_query(tasks, contexts=None) -> list[str]: independent rlm_query calls, up to {parallel} \
at once. {batch_cost}
Each also takes text=... to search something other than `context`.
- records(text=None) -> Records: `context` read once as records, one dict of typed fields per line \
or row (JSON, CSV/TSV with a header, key=value lines after a time and a level). recs.fields(): the \
field names with examples; recs.unparsed: the lines that are no record.
For records that are lines like `L-1|M-7|B-204|Old Town|9|4.50` under the header \
`loan|member|book|branch|days_late|fee`, and `M-7|Ada|Vaasa` under `member_id|name|city`, \
each question is one line (`recs` is records(context), already read):
  lookup: who borrowed B-204? answer = recs.where(book="B-204").first()["member"]
  count: how many late loans at Old Town? answer = recs.where(branch="Old Town", days_late=above(0)).count()
  sum: total fees of M-7? answer = recs.where(member="M-7").sum("fee")
  group-by: which branch has the most late loans? \
answer = recs.where(days_late=above(0)).group_count("branch").most_common(1)[0][0]
  join: in which city lives the member who borrowed B-204? \
answer = recs.join("member", "member_id").where(book="B-204").first()["city"]
  absent: who borrowed B-999? hits = recs.where(book="B-999"); \
answer = hits.first()["member"] if hits else "NOT PRESENT"
where(field=value) ignores case; a value may also be startswith("x"), contains("x"), above(n), \
below(n), one_of(a, b), or where(lambda r: ...). The answer is the value alone: `Vaasa`, `12`.

Python and the helpers are free and instant: use them first. Use llm_query to read one piece, \
rlm_query only when a piece needs its own search, batch_rlm_query for many pieces.

Best: compute the answer in a variable, print it, and end the reply with FINAL_VAR(variable_name):
```repl
answer = count("ERROR")
print(answer)
```
FINAL_VAR(answer)

Several ```repl blocks in one reply run in order, one after the other, in the same REPL: one reply \
with several blocks costs one iteration, several replies cost several. For example:
```repl
lines = grep("timeout")
print(len(lines), lines[:3])
```
```repl
services = sorted({{line.split()[3] for line in lines}})
print(services)
```
When an output you have seen shows the answer, write FINAL(the answer) on its own line OUTSIDE code blocks.
Budget of this run: {iterations_left} iterations, {cost_left}, depth {depth} of max {max_depth}."""

SUB_RLM = """

You are a sub-RLM at depth {depth} of max {max_depth}. Your budget: {allocated}; \
your parent has {parent_left} left. Prefer llm_query to rlm_query, finish in 2-5 iterations \
and return FINAL() promptly."""

FIRST_TURN = """\
Question: {question}

`context` begins with:
{preview}

Write one ```repl block that finds the answer with {how} and puts it in a \
variable, then FINAL_VAR(that variable) outside the block."""

#: how the first turn asks for the first block: the text read as records, or not
WITH_RECORDS = "recs = records(context) and one call chain like the examples (where, count, sum, group_count, join)"
WITH_SEARCHES = "grep/count/lines_with"

RESTART = """\
Question: {question}

`context` begins with:
{preview}

Your earlier replies went nowhere ({why}); they are not shown. What their code printed, and the \
notes on its searches:
{evidence}

Write one new ```repl block that finds the answer with records(context) or grep/count/lines_with (print what you \
find) and puts it in a variable, then FINAL_VAR(that variable) outside the block."""

NEXT_TURN = """\
Output of your code:
{outputs}{notes}{hint}

Question: {question}
If the output above answers it, reply with just FINAL(answer), the answer taken from the output. \
Otherwise write different ```repl code that puts the answer in a variable, then FINAL_VAR(name). \
Budget left: {iterations_left} iterations, {cost_left}."""

ANSWER_TURN = """\
Output of your code:
{outputs}{hint}

Question: {question}
Answer the question from this output only, as JSON: {{"answer": "..."}} with just the value the \
question asks for (a number, an id, a name), not the whole line it is on. If the output does not \
contain the answer, reply {{"answer": ""}}."""

FORCED = """\
The budget is exhausted ({reason}); no more code will run.
Question: {question}

What code printed over the text, and the notes on its searches:
{evidence}

Answer the question from these outputs and notes, as JSON: {{"answer": "..."}} with just the value \
the question asks for (a number, an id, a name), not the whole line it is on; {{"answer": "NOT PRESENT"}} \
if they show the text does not hold it."""

CHECK = """\
Question: {question}
Proposed answer: {answer}

Printed outputs of code run over the text:
{evidence}

Do these outputs support the proposed answer to the question? Reply as JSON: \
{{"supported": true or false, "answer": "the value the outputs give", "reason": "one short sentence"}}"""

DIRECT = """\
Answer the task directly and briefly from the text below.

Task: {task}

Text:
{text}"""


def _money(budget: Budget) -> str:
    cost, tokens = budget.remaining_cost_usd(), budget.remaining_tokens()
    parts = ["no cost limit" if math.isinf(cost) else f"${cost:.4f}"]
    if not math.isinf(tokens):
        parts.append(f"{int(tokens):,} tokens")
    return ", ".join(parts)


def system_prompt(budget: Budget, *, context_type: str, context_len: int, estimate: CallEstimate,
                  sub_chars: int, output_chars: int, sub_iterations: int) -> str:
    """The system prompt for an executor at ``budget.depth`` (a sub-RLM gets the extra paragraph)."""
    rlm_calls = max(2, sub_iterations // 2 + 1)
    text = SYSTEM.format(
        context_type=context_type, context_len=context_len, output_chars=output_chars, sub_chars=sub_chars,
        llm_cost=estimate.describe(1), rlm_cost=estimate.describe(rlm_calls),
        batch_cost=f"Per task {estimate.describe(rlm_calls)}", parallel=budget.limits.max_parallel,
        iterations_left=budget.limits.max_iterations - budget.iterations, cost_left=_money(budget),
        depth=budget.depth, max_depth=budget.limits.max_depth,
    )
    if budget.parent is None:
        return text
    allocated = f"{_money(budget)}, {budget.limits.max_iterations} iterations"
    return text + SUB_RLM.format(depth=budget.depth, max_depth=budget.limits.max_depth,
                                 allocated=allocated, parent_left=_money(budget.parent))


def first_turn(question: str, preview: str, *, as_records: bool = False) -> str:
    """The first user turn: the question, the start of the context and the protocol."""
    return FIRST_TURN.format(question=question, preview=preview, how=WITH_RECORDS if as_records else WITH_SEARCHES)


def restart_turn(question: str, preview: str, evidence: str, why: str) -> str:
    """The one user turn of a restarted conversation (the model repeated itself, or wrote no code):
    the question, the start of the context, and the run's printed evidence instead of the replies
    a small model would copy again."""
    return RESTART.format(question=question, preview=preview, why=why, evidence=evidence or "(nothing printed)")


def next_turn(question: str, outputs: str, notes: list[str], budget: Budget, hint: str = "",
              call_cost: str = "") -> str:
    """The user turn after an iteration: its outputs, notes, the answer hint, the protocol again, the
    budget left and ``call_cost`` (:meth:`CallEstimate.describe` of one call, measured so far: the
    system prompt keeps the estimates of the run's start)."""
    note_text = "".join(f"\nNote: {n}" for n in notes)
    text = NEXT_TURN.format(outputs=outputs.rstrip("\n"), notes=note_text, hint=f"\n{hint}" if hint else "",
                            question=_clip(question), iterations_left=budget.limits.max_iterations - budget.iterations,
                            cost_left=_money(budget))
    return f"{text} llm_query: {call_cost}" if call_cost else text


def answer_turn(question: str, outputs: str, hint: str = "") -> str:
    """The user turn asking for the answer from the output just shown, as JSON ``{"answer": ...}``
    (the model wrote a FINAL before that output existed; that FINAL is not shown)."""
    return ANSWER_TURN.format(outputs=outputs.rstrip("\n"), hint=f"\n{hint}" if hint else "", question=_clip(question))


def whole_name_hint(lines: list[str]) -> str:
    """The answer hint after a search among look-alikes: the printed lines that name the question's
    name itself (:func:`codur.rlm.provenance.whole_name_lines`)."""
    shown = " | ".join(_clip(line, QUOTED_LINE_CHARS) for line in lines)
    return (f"Of the lines printed, only {'this one names' if len(lines) == 1 else 'these name'} the name of the "
            f"question itself (the others are look-alikes): {shown}. If it answers the question, reply with just "
            "FINAL(the value from it).")


_NUMBER = provenance.NUMBER
_HOW_MANY = provenance.HOW_MANY
#: a question naming the answer's form as a number: "Answer with the port number."
_ASKS_NUMBER = re.compile(r"\banswer with (?:the|a|its) (?:[\w-]+ )?number\b", re.IGNORECASE)
_WHICH = re.compile(r"\b(?:which|what|who|where|when)\b", re.IGNORECASE)


def absent_hint(name: str, alikes: list[str]) -> str:
    """The answer hint after a search that printed only look-alikes of the question's name, which
    no line of the whole text names (:func:`codur.rlm.provenance.look_alikes_only`)."""
    return (f"The lines printed name only longer names ({', '.join(alikes)}), and no line of the whole text names "
            f"{name} itself: their values are not {name}'s. If the question asks about {name}, the text does not "
            "hold it: reply with just FINAL(NOT PRESENT).")


def answer_hint(question: str, stdout: str, context: object = None) -> str:
    """A line saying the last output is a single value of the kind the question asks for, else "".

    A number answers "how many / count / number of / total"; one line (or a list of one
    line) answers "which / what / who / where / when". After a search among look-alikes, the
    line(s) naming the question's name itself (:func:`whole_name_hint`), or, when neither they nor
    any line of ``context`` (the whole input) names it, that it is not there (:func:`absent_hint`).
    """
    if named := provenance.whole_name_lines(question, stdout):
        return whole_name_hint(named)
    name, alikes = provenance.look_alikes_only(question, stdout, context)
    if name:
        return absent_hint(name, alikes)
    value = stdout.strip()
    if not value or "\n" in value or len(value) > 300 or value in ("[]", "{}", "()", "set()", "None", "''", '""'):
        return ""
    value = provenance.unwrap(value)
    if _NUMBER.fullmatch(value):
        if _HOW_MANY.search(question):
            return (f"Your last output is a single number, {value}: the kind of answer this "
                    "\"how many\" question needs. If it counts what was asked, that is the answer.")
        if _WHICH.search(question):
            return f"Your last output is a single value, {value}: if it is what was asked, that is the answer."
        return ""
    if _WHICH.search(question):
        return f"Your last output is a single line: {value!r}. If it answers the question, the answer is in it."
    return ""


def forced_turn(question: str, reason: str, evidence: str) -> str:
    """The one prompt of the forced answer when the budget ran out: the question and the run's
    printed evidence (outputs and notes, :func:`codur.rlm.answers.evidence_of`), not the
    conversation, whose replies hold the model's own guesses (a ``FINAL('NOT PRESENT')`` in an
    else branch) that a small model copies."""
    return FORCED.format(reason=reason, question=_clip(question), evidence=evidence or "(nothing printed)")


def fits_question(question: str, value: str, context: object = None) -> bool:
    """False when ``value`` is plainly not the kind of answer ``question`` asks for: not a number
    for "how many / count / number of / total"; neither a number nor "not present" for "answer
    with the port number"; for "which / what / who / where / when", a line of over 40 characters
    copied whole from ``context`` (the input text), alone or as a printed list of that one line: a
    raw line, not the value in it. True otherwise."""
    text = value.strip()
    if _HOW_MANY.search(question):
        return _NUMBER.fullmatch(text) is not None
    if _ASKS_NUMBER.search(question):  # a number, or that there is none
        return _NUMBER.fullmatch(text) is not None or provenance.says_absent(text)
    if _WHICH.search(question):  # a line copied whole, alone or as a list of one line
        line = provenance.unwrap(text)
        return not (len(line) > 40 and isinstance(context, str) and line in context)
    return True


def check_prompt(question: str, answer: str, evidence: str) -> str:
    """The answer check's prompt: the question, the proposed answer and the printed evidence."""
    return CHECK.format(question=_clip(question), answer=_clip(answer, 300), evidence=evidence or "(nothing printed)")


def direct_answer_prompt(task: str, text: str) -> str:
    """The prompt of a direct answer (rlm_query without budget for a sub-RLM)."""
    return DIRECT.format(task=task, text=text or "(none)")


def direct_tokens(task: str, text: str) -> int:
    """The tokens of :func:`direct_answer_prompt` for ``task`` over ``text``, estimated at
    :data:`DIRECT_CHARS_PER_TOKEN` characters a token (rounded up)."""
    return -(-len(direct_answer_prompt(task, text)) // DIRECT_CHARS_PER_TOKEN)


def _clip(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit] + " …"
