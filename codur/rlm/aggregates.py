"""The two-program check of an aggregate answer (issue 40): a count, sum, most / least, distinct or
average is taken when two programs that work differently agree, program-of-thought answers checked
by self-consistency over independent programs (Chen et al. 2022, "Program of Thoughts Prompting";
Wang et al. 2023, "Self-Consistency Improves Chain of Thought Reasoning in Language Models").

When the programs still disagree as the answer is taken (the asks spent, the last iteration), the
answer of the program that states more of the question's own words in its searches and filters
stands (:meth:`SecondProgram.settle`): a program that leaves a constraint of the question out of its
code counts more than the question asks for (``count("duplicate")`` against
``grep("resolution=duplicate")`` for "how many tickets were resolved with the resolution duplicate").

Two programs agreeing on an empty result (0, an empty list, None) are asked once more before it is
taken (:func:`is_empty_result`, :func:`empty_result_note`): an empty output is the sign of a filter that
matched nothing, as execution-guided decoding treats it (Wang et al. 2018, "Robust Text-to-SQL
Generation with Execution-Guided Decoding"), and two programs sharing one wrong filter (a value
written in another case or field) agree on it.

No model call here; the engine (:mod:`codur.rlm.finals`) turns a note into one more turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from codur.rlm.evidence import clip, string_literals
from codur.rlm.helpers import EMPTY_VALUES
from codur.rlm.provenance import says_absent, unwrap
from codur.rlm.slots import field_values, records_of

#: words of a question that state no constraint (question words, filler, the answer's form)
_FILLER = frozenset((
    "a", "an", "the", "and", "or", "of", "in", "on", "at", "to", "for", "by", "with", "from", "as", "is", "are",
    "was", "were", "be", "been", "being", "has", "have", "had", "do", "does", "did", "how", "many", "much",
    "number", "times", "time", "what", "which", "who", "whom", "whose", "when", "where", "there", "their", "its",
    "it", "this", "that", "these", "those", "any", "all", "each", "every", "may", "might", "can", "could",
    "should", "would", "will", "answer", "written", "case", "count", "total", "sum", "more", "most", "least",
    "fewest", "highest", "lowest", "largest", "smallest", "maximum", "minimum", "average", "mean", "median",
    "distinct", "unique", "value", "values",
))
_TOKEN = re.compile(r"[a-z][a-z0-9]*")


def constraint_words(question: str) -> frozenset[str]:
    """The words of ``question`` that can state a constraint: lower case, 3 letters or more, no
    question word or filler (``ticket``, ``resolved``, ``resolution``, ``duplicate``)."""
    return frozenset(w for w in _TOKEN.findall(question.lower()) if len(w) >= 3 and w not in _FILLER)


def coverage(question: str, code: str) -> int:
    """How many of the question's :func:`constraint_words` the string literals of ``code`` (its
    searches, filters and compared values) name."""
    return len(constraint_words(question) & _named(code))


def _named(code: str) -> set[str]:
    """The words, lower case, of the string literals of ``code``."""
    return {w for literal in string_literals(code) for w in _TOKEN.findall(literal.lower())}


@dataclass
class Program:
    """One program that answered an aggregate question: its answer, its code, what it printed, and
    the iteration it answered in."""

    answer: str
    code: str
    printed: str
    iteration: int = 0


@dataclass
class SecondProgram:
    """The two-program check of an aggregate answer (:func:`is_aggregate`), one per run.

    :meth:`offer` says what to do with an answer: "" to accept it, or a note for one more turn.
    The first answer asks for a second program written differently; a second answer from new code
    equal to the first (by ``key``, e.g. :func:`codur.rlm.vote.vote_key`) is accepted; a different one
    gets both programs and their samples shown and the question which constraint each missed. After a
    disagreement an answer is accepted only from a further program whose answer one of the earlier
    programs also gave (a majority of independent programs, as self-consistency takes): an answer
    re-asserted with no new code is asked again, and a third different value gets all programs shown.
    At most ``max_asks`` notes on new programs per run, then any answer from a new program stands;
    an answer with no new program behind it is always asked again (the engine's last iteration
    takes whatever comes: the run's iteration limit bounds these asks). The bench's tickets count
    showed why: two bare re-assertions of the first answer used up the asks, and the second
    program's wrong 305 was taken unchecked.
    """

    programs: list[Program] = field(default_factory=list)
    agreed: bool = False
    asks: int = 0
    max_asks: int = 3
    settled: dict | None = None
    empty_asked: bool = False
    spanning: bool = False  # the input's records span several lines each (:func:`records_span_lines`)

    def offer(self, answer: str, code: str, printed: str, key: Callable[[str], str], *, iteration: int = 0) -> str:
        """"" to accept ``answer`` (computed by ``code``, which printed ``printed``, in ``iteration``),
        else the note asking for the next program."""
        if self.agreed:
            return ""
        if self.programs and any(_same_code(code, p.code) for p in self.programs):
            return self._no_new_program(answer)
        if self.asks >= self.max_asks:
            return ""
        empty_before = self.empty_asked
        note = self._judge(answer, code, printed, key, iteration)
        self.asks += bool(note) and self.empty_asked == empty_before  # the empty-result ask is once, uncounted
        return note

    def _no_new_program(self, answer: str) -> str:
        """The ask again for an answer with no new program behind it (not counted in ``asks``: the
        run's iteration limit bounds it, and the last iteration's answer stands)."""
        if len(self.programs) == 1:
            return (f"{clip(answer, 60)} must be checked by a second program that works differently from the "
                    "first; write and run it, printing 3 lines it counts and its result, then FINAL_VAR of the "
                    "result")
        return reassertion_note(answer, self.programs)

    def _judge(self, answer: str, code: str, printed: str, key: Callable[[str], str], iteration: int) -> str:
        if not self.programs:
            self.programs.append(Program(answer, code, printed, iteration))
            return second_program_note(answer, code, spanning=self.spanning)
        self.programs.append(Program(answer, code, printed, iteration))
        if any(key(answer) == key(p.answer) for p in self.programs[:-1]):
            if is_empty_result(answer) and not self.empty_asked:
                self.empty_asked = True
                return empty_result_note(answer, self.programs)
            self.agreed = True
            return ""
        return disagreement_note(*self.programs)

    def settle(self, answer: str, question: str, key: Callable[[str], str], *, backed: bool = True) -> str:
        """The answer that stands when ``answer`` is taken while the programs disagree: the answer of
        the program whose code names strictly more of ``question``'s constraint words
        (:func:`coverage`) than every program that gave ``answer`` (none counts 0); an empty result
        (:func:`is_empty_result`) also yields to a program's non-empty answer naming as many (an empty
        result usually means a filter that matched nothing: the builds count, 22 computed through
        ``records``, then a ``grep("branch=hotfix")`` over JSON printed 0 and the last iteration's 0
        was taken); else ``answer``. A change is kept in :attr:`settled`.

        ``backed=False``: ``answer`` was written directly, and no output shows it as a result
        (:func:`codur.rlm.evidence.shown_as_result`); no program gave it either, so the answer the programs
        computed stands (:meth:`standing`): the builds group-by at 2M printed ``[('hotfix', 451)]`` and
        the last iteration wrote ``develop``, third in the printed ranking."""
        if self.agreed or not self.programs:
            return answer
        if not backed and all(key(p.answer) != key(answer) for p in self.programs):
            standing = self.settle(self.programs[0].answer, question, key)
            self.settled = {"from": answer, "to": standing, "unbacked": True}
            return standing
        scores = [coverage(question, p.code) for p in self.programs]
        mine = max((c for c, p in zip(scores, self.programs, strict=True) if key(p.answer) == key(answer)), default=0)
        empty = is_empty_result(answer)

        def beats(c: int, p: Program) -> bool:
            if key(p.answer) == key(answer):
                return False
            return c > mine and len(self.programs) > 1 or empty and c >= mine and not is_empty_result(p.answer)

        ranked = [(c, -i) for i, (c, p) in enumerate(zip(scores, self.programs, strict=True)) if beats(c, p)]
        if not ranked:
            return answer
        best = self.programs[-max(ranked)[1]]
        self.settled = {"from": answer, "to": best.answer, "coverage": scores}
        return best.answer

    def standing(self, question: str, key: Callable[[str], str]) -> str | None:
        """The answer that stands when the run's budget ends before any was taken: the first
        program's, or the program's that :meth:`settle` prefers when several disagree; None when no
        program answered. A program's computed answer is never replaced by a guess the forced call
        makes from truncated outputs (the logs count at 400k: 293 computed, then a forced 3)."""
        return self.settle(self.programs[0].answer, question, key) if self.programs else None

    def to_dict(self) -> dict:
        return {"agreed": self.agreed, "asks": self.asks, "settled": self.settled, "empty_asked": self.empty_asked,
                "programs": [{"answer": p.answer, "iteration": p.iteration, "code": p.code[:2000]}
                             for p in self.programs]}


def _same_code(new: str, first: str) -> bool:
    """True when ``new`` is no second program: empty, or ``first`` again up to white space."""
    def bare(code: str) -> str:
        return re.sub(r"\s+", "", code)
    return not new.strip() or bare(new) == bare(first) or bare(new) in bare(first)


def unnamed_values(question: str, code: str, context: str, limit: int = 3) -> list[str]:
    """Up to ``limit`` of ``question``'s :func:`constraint_words`, in the question's order, that the string
    literals of ``code`` do not name but ``context`` holds as a value: a whole word somewhere not written as a
    field's name (``word=``, ``"word":``, ``word:``). "How many transfer payments failed?" answered by
    ``recs.where(status="failed").count()``: ``transfer`` (a method's value in the text) is not filtered on."""
    named, wanted = _named(code), constraint_words(question)
    words = [w for w in dict.fromkeys(_TOKEN.findall(question.lower())) if w in wanted]
    return [w for w in words if w not in named and re.search(rf"(?i)(?<![\w-]){w}(?![\w-])(?!\"?\s*[:=])", context)
            ][:limit]


def unnamed_note(question: str, code: str, context: str) -> str:
    """The sentence a second-program ask gains when the first program filters on none of
    :func:`unnamed_values` ("" when it names them all): each word with the ``where`` constraint that
    states it when the input is records and one field holds it as a value (``where(method='card')``)."""
    missing = unnamed_values(question, code, context)
    if not missing:
        return ""
    fields = field_values(context)

    def said(word: str) -> str:
        named = [name for name, values in fields.items() if values is not None and word in values]
        return f"{word!r} (where({named[0]}={word!r}))" if len(named) == 1 else repr(word)
    return (f". The question says {', '.join(map(said, missing))}, which the text holds as values, and your first "
            "program filters on none of them: the second program should state every constraint of the question")


def second_program_note(answer: str, code: str, *, spanning: bool = False) -> str:
    """The ask for a second program after a first aggregate answer, naming a different method; ``spanning``:
    each record of the input spans several lines (:func:`records_span_lines`), so no regex over the lines
    can count them and the other method is a parse of its own."""
    if spanning and re.search(r"records\(|\brecs\b", code):
        other = ("json.loads(context) (or the csv module) and a loop testing every constraint on each object's "
                 "fields, without records(): a record spans several lines here, so a regex over the lines "
                 "cannot count them")
    elif re.search(r"records\(|\brecs\b|json\.loads|split\(|\.get\(|\[['\"]\w+['\"]\]", code):
        other = "a regex over the lines, without records() (grep / count with a pattern holding every constraint)"
    else:
        other = ("records(context).where(field=value, ...) with each constraint of the question on its own field "
                 "(or a parse of the fields of each line: json.loads, or split on the separator)")
    return (f"before {clip(answer, 60)} is taken, check it with a second program that works differently: {other}. "
            "Print the first 3 lines it counts and its result, then FINAL_VAR of the result")


def records_span_lines(context: object) -> bool:
    """True when the input is records (:func:`codur.rlm.slots.records_of`) that span two or more lines
    each on average: a pretty-printed JSON array, where a regex over the lines counts no record."""
    recs = records_of(context)
    return recs is not None and isinstance(context, str) and 2 * len(recs) <= context.count("\n")


def disagreement_note(*programs: Program, code_chars: int = 400, sample_chars: int = 300) -> str:
    """The programs (two or more), their answers and samples of what they printed, and the question
    which constraint each missed."""
    def show(n: int, p: Program) -> str:
        return (f"program {n} answered {clip(p.answer, 60)}:\n{clip(p.code, code_chars)}\nit printed: "
                f"{clip(p.printed, sample_chars)}")
    shown = "\n".join(show(n, p) for n, p in enumerate(programs, 1))
    return (f"{_NUMBER_WORDS.get(len(programs), len(programs))} programs disagree. " + shown + "\nWhich constraint "
            "of the question did each one miss (a word matched in the wrong field, a case, a form of the value)? "
            "Write one program that tests every constraint on each line, print 3 lines it counts and its result, "
            "then FINAL_VAR of the result")


def is_empty_result(answer: str) -> bool:
    """True for an aggregate answer saying nothing matched: an empty value (``0``, ``[]``, ``None``:
    :data:`codur.rlm.helpers.EMPTY_VALUES`, as the REPL's empty outputs) or "not present"."""
    text = unwrap(answer)
    return text in EMPTY_VALUES or says_absent(text)


def empty_result_note(answer: str, programs: list[Program], code_chars: int = 300) -> str:
    """The ask after programs agree on an empty result: print what each constraint matches alone."""
    return (f"{len(programs)} programs answered {clip(answer, 40)}, and an empty result usually means a filter that "
            "matched nothing (the value written another way in the text: its case, quotes, field name or form), "
            f"not that nothing is there. The last program:\n{clip(programs[-1].code, code_chars)}\nPrint how many "
            "lines each constraint of the question matches on its own (one count per constraint) and 2 lines of "
            "each; then count the lines that match them all, print 3 of them and the count, and FINAL_VAR of it")


def reassertion_note(answer: str, programs: list[Program]) -> str:
    """The ask after an answer given again with no new program, once programs disagreed: only a
    program that tests every constraint decides between their answers."""
    answers = " and ".join(clip(p.answer, 40) for p in programs)
    return (f"{clip(answer, 60)} was given again with no new program, but programs answered {answers}: "
            "repeating an answer does not check it. Write one program that tests every constraint of the question "
            "on each line, print 3 lines it counts and its result, then FINAL_VAR of the result")


_NUMBER_WORDS = {2: "two", 3: "three", 4: "four"}
