"""The answer alone (issue 54, item 4): the value the question asks for, not the field around it.

A small model hands in ``city=Tampere``, ``{'city': 'Tampere'}``, ``48 lines`` or ``1,172`` where
the question asked for the city or the number. :func:`answer_alone` keeps the value: it never
invents one, it only removes what surrounds a single value (a field name, quotes, a list of one
item, the words around the only number of a number question).
"""

from __future__ import annotations

import re

from codur.rlm import provenance, slots

#: one ``field=value`` / ``field: value`` pair, as a line, a dict or a JSON fragment prints it
_PAIR = re.compile(r"""\{?\s*['"]?([A-Za-z_][\w.-]*)['"]?\s*(?:=|:\s)\s*['"]?([^'"={}]+?)['"]?\s*\}?""")
#: a question asking for a number: how many / total / "answer with the number", "the number only"
_NUMBER_QUESTION = re.compile(r"\bhow (?:many|much)\b|\bnumber of\b|\btotal\b|\bsum\b|\bcount\b|"
                              r"\banswer with (?:the|a|its) (?:[\w-]+ )?number\b|\bnumber only\b", re.IGNORECASE)
_NUMBERS = re.compile(r"(?<![\w.-])-?\d[\d,]*(?:\.\d+)?(?![\w-])")
_ABSENT_ASKED = re.compile(r"\banswer\s+NOT PRESENT\b", re.IGNORECASE)


def _number(text: str) -> str:
    """``1,172`` -> ``1172``, ``940359.0`` -> ``940359``."""
    plain = text.replace(",", "")
    if "." in plain:
        value = float(plain)
        return str(int(value)) if value.is_integer() else repr(value)
    return str(int(plain))


def answer_alone(question: str, answer: str | None) -> str | None:
    """``answer`` reduced to the value ``question`` asks for, or unchanged when nothing surrounds it.

    * a number question (how many, total, sum, "answer with the number", "the number only"): the
      only number of the answer (``48 lines`` -> ``48``, ``1,172`` -> ``1172``); several numbers stay;
    * an absence when the question names its word (``answer NOT PRESENT``): ``NOT PRESENT``;
    * one ``field=value`` / ``field: value`` pair (``city=Tampere``, ``{'city': 'Tampere'}``): the value,
      when it is one word or the question names the field (``Error: timeout while reading`` stays);
    * two words, the first naming what the question asks for (:func:`codur.rlm.slots.asked_words`):
      the second (``team lumen`` -> ``lumen`` for "Which team ...?");
    * quotes, a list of one item and the trailing period of one word are removed.
    """
    if answer is None:
        return None
    text = provenance.unwrap(str(answer))
    text = text if " " in text else text.rstrip(".")
    if not text:
        return answer
    if _ABSENT_ASKED.search(question) and provenance.says_absent(text) and not _NUMBERS.search(text):
        return "NOT PRESENT"
    if _NUMBER_QUESTION.search(question):
        numbers = {_number(n) for n in _NUMBERS.findall(text)}
        if len(numbers) == 1:
            return numbers.pop()
    words = text.split()
    if len(words) == 2 and words[0].lower().rstrip(":") in slots.asked_words(question):
        return words[1]  # "team lumen" for "Which team ...? Answer with the team name": the field's name before it
    pair = _PAIR.fullmatch(text)
    if pair and not pair.group(2).startswith("/"):
        key, value = pair.group(1), pair.group(2).strip()
        named = any(word and word in question.lower() for word in re.split(r"[_.-]", key.lower()))
        if named or " " not in value:
            return value
    return text
