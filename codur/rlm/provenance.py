"""Where an answer comes from: two checks on a FINAL before it is accepted, no model call.

A small model's commonest wrong answers in bench/rlm were not miscomputed values but values
from the wrong place: a number it never saw (``FINAL(12345)`` in prose after a failed block),
and a look-alike's value (the port on ``service=billing-46-canary`` for a question about
``billing-46``). Both are visible in the text, so the engine says so instead of accepting.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from codur.core.pyast import parse_ast
from codur.rlm.notes import QUOTED_LINE_CHARS
from codur.rlm.notes import whole_name as _whole

#: the names a question asks about: a token with a digit or an inner hyphen (``billing-46``, ``u-7502``)
_KEY_NAME = re.compile(r"(?<![\w-])(?=[\w-]*(?:\d|\w-\w))[A-Za-z0-9][\w-]*[A-Za-z0-9](?![\w-])")
_ABSENT = re.compile(r"\b(?:not (?:present|found|in the (?:text|log|context))|absent|no such|none|unknown)\b",
                     re.IGNORECASE)


#: a question asking for a count: its answer may be about a name the text never holds (0)
HOW_MANY = re.compile(r"\bhow (?:many|much|often)\b|\bcount\b|\bnumber of\b|\btotal\b", re.IGNORECASE)


#: a list of one quoted item, as Python prints it: ``['config service=billing-46 port=43071']``
_ONE_ITEM = re.compile(r"""\[(['"])(.*)\1\]""")


#: one number as an answer: ``293``, ``1,204``, ``-3.5``
NUMBER = re.compile(r"-?\d[\d,_]*(?:\.\d+)?")


def unwrap(value: str) -> str:
    """``value`` stripped of spaces and quotes, and of the brackets of a printed list of one item."""
    text = value.strip()
    if one := _ONE_ITEM.fullmatch(text):
        text = one.group(2)
    return text.strip().strip("'\"")


def key_names(question: str) -> list[str]:
    """The names ``question`` asks about: tokens of 3 characters or more holding a digit or an inner
    hyphen, in order, once each."""
    return list(dict.fromkeys(m.group(0) for m in _KEY_NAME.finditer(question) if len(m.group(0)) >= 3))


def says_absent(value: str) -> bool:
    """True for an answer saying the thing is not there ("NOT PRESENT", "not found", "none")."""
    return _ABSENT.search(value) is not None



def unseen(value: str, printed: Iterable[str], context: object = None) -> bool:
    """True when ``value`` (a direct FINAL of at most 40 characters) holds a token with a digit
    that is in none of ``printed`` (what the code printed, the notes, what was shown of a
    FINAL_VAR) and not a whole token of ``context`` (the input): a number the model made up
    (``FINAL(12345)`` in prose after a failed block). Compared ignoring case, quotes and
    thousands commas. A word answer ("yes", a summary) and one saying "not present" are never
    unseen: they may come from reading."""
    text = value.strip().strip("'\"` .").replace(",", "")
    if not text or len(text) > 40 or says_absent(text):
        return False
    seen = [out.replace(",", "").lower() for out in printed]

    def made_up(token: str) -> bool:
        in_text = isinstance(context, str) and _whole(token).search(context) is not None
        return not in_text and not any(token.lower() in out for out in seen)
    return any(made_up(t) for t in re.findall(r"[\w-]*\d[\w-]*", text))


def look_alike_source(question: str, value: str, context: object, *, width: int = QUOTED_LINE_CHARS) -> str:
    """A note when every line of ``context`` holding ``value`` (a whole token of at most 40
    characters) names one of the question's :func:`key_names` only inside a longer name
    (``billing-46-canary`` for ``billing-46``) and none names it whole: that value belongs to a
    look-alike. A value that is a whole line of ``context`` (at most 300 characters, or a printed
    list of that one line) is judged as that line. "" otherwise (also for a value on no line, or a
    question with no such name)."""
    text = unwrap(value)
    if not isinstance(context, str) or not text or len(text) > 300 or "\n" in text:
        return ""
    names = key_names(question)
    if not names:
        return ""
    copied = f"\n{text}\n" in f"\n{context}\n"  # a copied line: that line is where the answer comes from
    if copied:
        lines = [text]
    elif len(text) > 40:
        return ""
    else:
        found = _whole(text)
        lines = [line for line in context.splitlines() if text.lower() in line.lower() and found.search(line)]
    if not lines or len(lines) > 20:
        return ""
    for name in names:
        whole = _whole(name)
        longer = re.compile(rf"[\w-]*{re.escape(name)}[\w-]*", re.IGNORECASE)
        if any(whole.search(line) for line in lines):
            return ""
        others = [m.group(0) for line in lines for m in longer.finditer(line) if m.group(0).lower() != name.lower()]
        if others:
            line = lines[0].strip()[:width]
            where = f"the line {line!r}" if copied else f"{text} is on the line {line!r}, which"
            return (f"{where} names {others[0]}, not {name}: "
                    f"that is a look-alike's value; find the line naming {name} itself, or answer NOT PRESENT "
                    "if there is none")
    return ""


def names_in_code(codes: Iterable[str]) -> set[str]:
    """The names the run's code blocks use (assigned or read): ``FINAL(warehouse_id)`` hands in
    one of them instead of its value."""
    import ast

    names: set[str] = set()
    for code in codes:
        try:
            names.update(node.id for node in ast.walk(parse_ast(code)) if isinstance(node, ast.Name))
        except SyntaxError:
            continue
    return names


def printed_items(stdout: str) -> list[str]:
    """The lines of an output, a printed list of strings split into its items."""
    import ast

    items: list[str] = []
    for line in stdout.splitlines():
        text = line.strip()
        if text.startswith("[") and text.endswith("]"):
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                value = None
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                items.extend(value)
                continue
        items.append(text)
    return [item for item in items if item]


def whole_name_lines(question: str, stdout: str, *, most: int = 3) -> list[str]:
    """The printed lines (or items of a printed list) naming one of the question's
    :func:`key_names` as a whole name, when others name it only inside a longer name (the output
    of a loose search among look-alikes), at most ``most`` of them; [] otherwise."""
    items = printed_items(stdout)
    for name in key_names(question):
        whole = _whole(name)
        holding = [item for item in items if name.lower() in item.lower()]
        exact = [item for item in holding if whole.search(item)]
        if exact and len(exact) < len(holding) and len(exact) <= most:
            return exact
    return []


def look_alikes_only(question: str, stdout: str, context: object) -> tuple[str, list[str]]:
    """For a printed search among look-alikes: the question's name (:func:`key_names`) and the
    longer names the printed lines (or items of a printed list) hold it in, when none of them names
    it whole and no line of ``context`` (the whole input) does either: the text does not hold it
    (``pricing-21`` with only ``pricing-214``, ``pricing-21-canary`` printed). ("", []) otherwise,
    and for a count question (:data:`HOW_MANY`)."""
    if not isinstance(context, str) or HOW_MANY.search(question):
        return "", []
    items = printed_items(stdout)
    for name in key_names(question):
        longer = re.compile(rf"[\w-]*{re.escape(name)}[\w-]*", re.IGNORECASE)
        holding = [item for item in items if name.lower() in item.lower()]
        if not holding or any(_whole(name).search(item) for item in holding) or _whole(name).search(context):
            continue
        return name, list(dict.fromkeys(m.group(0) for item in holding for m in longer.finditer(item)))[:5]
    return "", []


def named_after_all(question: str, value: str, context: object, *, width: int = QUOTED_LINE_CHARS) -> str:
    """A note when ``value`` says "not present" (:func:`says_absent`) but a line of ``context`` names
    one of the question's :func:`key_names` as a whole name: that line may hold the answer. ""
    otherwise. Given once per run: a line may name it without what was asked."""
    if not isinstance(context, str) or not says_absent(value) or len(value.strip()) > 80:
        return ""
    for name in key_names(question):
        whole = _whole(name)
        lines = [line.strip()[:width] for line in context.splitlines()
                 if name.lower() in line.lower() and whole.search(line)]
        if lines:
            return (f"{len(lines):,} line(s) of the text name {name} itself, the first: {lines[0]!r}; read what "
                    "they say before answering that it is not there")
    return ""


def unconnected(question: str, value: str, context: object, printed: Iterable[str], *,
                width: int = QUOTED_LINE_CHARS) -> str:
    """A note when ``value`` (at most 40 characters) is on at most 20 lines of ``context`` and none
    of them names one of the question's :func:`key_names`, nor a token with a digit that the code
    printed (the link of a two-step answer: the order id of a join): the value was taken from a
    line unrelated to the question (the first ``port=`` of the log). "" otherwise."""
    text = value.strip().strip("'\"")
    names = key_names(question)
    if not isinstance(context, str) or not names or not text or len(text) > 40 or "\n" in text:
        return ""
    found = _whole(text)
    lines = [line for line in context.splitlines() if text.lower() in line.lower() and found.search(line)]
    if not lines or len(lines) > 20:
        return ""
    links = {t.lower() for out in printed for t in re.findall(r"[\w-]*\d[\w-]*", out) if len(t) >= 3}
    links.discard(text.lower())
    for line in lines:
        tokens = {t.lower() for t in re.findall(r"[\w-]+", line)}
        if any(_whole(name).search(line) for name in names) or tokens & links:
            return ""
    return (f"{text} is on the line {lines[0].strip()[:width]!r}, which names no {' or '.join(names)}: "
            "that line does not answer the question")


#: an id a line may share with another: letters, a hyphen, then a digit (``o-28982``, ``W-17``), not a date
_ID = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*-\d[\w-]*(?![\w-])")
#: ids of the found lines whose other lines :func:`key_lines` shows, at most
LINKED_IDS = 2


def _linked(found: list[str], skip: set[str], lines: list[str], *, most: int, width: int) -> list[str]:
    """For the lines naming a question's name: the other lines naming an id they hold (the second
    step of a join: the order ``o-28982`` a user placed, then the line that ships it), at most
    :data:`LINKED_IDS` ids and ``most`` lines each, the found lines themselves left out."""
    linked = [i for i in dict.fromkeys(m.group(0) for line in found for m in _ID.finditer(line))
              if i.lower() not in skip][:LINKED_IDS]
    said = []
    for ident in linked:
        whole = _whole(ident)
        more = [line.strip()[:width] for line in lines if ident.lower() in line.lower() and whole.search(line)
                and line.strip()[:width] not in found]
        if more:
            said.append(f"Lines naming {ident}, which those lines name ({len(more):,}):\n"
                        + "\n".join(f"  {line}" for line in more[:most]))
    return said


def key_lines(question: str, context: object, *, most: int = 5, width: int = QUOTED_LINE_CHARS) -> str:
    """What the input says of each name the question asks about (:func:`key_names`), for the first
    turn: the lines naming it as a whole name (at most ``most``), the look-alike names of the lines
    holding it only inside a longer name, or that no line holds it. "" for a question with no such
    name or an input that is not text. A retrieval step before the loop: the 1.5B model's first
    searches were loose (``re.search(r"port=(\\d+)", context)``, the log's first port)."""
    names = key_names(question)
    if not isinstance(context, str) or not names:
        return ""
    lines = context.splitlines()
    said = []
    for name in names[:3]:
        whole, key = _whole(name), name.lower()
        holding = [line for line in lines if key in line.lower()]
        exact = [line.strip()[:width] for line in holding if whole.search(line)]
        longer = re.compile(rf"[\w-]*{re.escape(name)}[\w-]*", re.IGNORECASE)
        alike = list(dict.fromkeys(m.group(0) for line in holding for m in longer.finditer(line)
                                   if m.group(0).lower() != key))[:6]
        others = f"; look-alike names on other lines: {', '.join(alike)}" if alike else ""
        if exact:
            shown = "\n".join(f"  {line}" for line in exact[:most])
            more = f" (first {most})" if len(exact) > most else ""
            said.append(f"Lines naming {name} ({len(exact):,}){more}{others}:\n{shown}")
            said.extend(_linked(exact[:most], {n.lower() for n in names}, lines, most=most, width=width))
        elif alike:
            said.append(f"No line names {name} as a whole name{others}.")
        else:
            said.append(f"No line holds {name}.")
    return "\n".join(said)


#: answers that name where an answer would be, not an answer: ``FINAL(answer)``
PLACEHOLDERS = frozenset({"answer", "result", "value", "final_answer", "the answer", "your answer", "the_answer",
                          "variable_name", "output", "answer_variable", "the value"})


def is_placeholder(value: str) -> bool:
    """True for an answer that names a placeholder (``answer``, ``result``...), not a value."""
    return value.strip().strip("'\"`").lower() in PLACEHOLDERS


def echoes_question(question: str, value: str) -> str:
    """The question's name (:func:`key_names`) that a short answer (at most 60 characters) repeats
    as a whole name with no digit beside it, "" otherwise: ``pricing-22 port`` answers nothing about ``pricing-22``
    (a ``split("=")[1]`` one field too early)."""
    text = value.strip()
    if not text or len(text) > 60:
        return ""
    for name in key_names(question):
        rest = _whole(name).sub("", text)
        if rest != text and not re.search(r"\d", rest):  # the name, and no value beside it
            return name
    return ""


def refusal(question: str, answer: str, context: object, printed: Iterable[str], told: Iterable[str], *,
            last: bool = False, whole_text: bool = True) -> str:
    """The note refusing ``answer`` for where it comes from, "" to accept it: it repeats the
    question's name (:func:`echoes_question`), sits on a look-alike's line
    (:func:`look_alike_source`), is a value for a name the text never holds (:func:`nameless`),
    or, once per run (``told``: the notes given so far), sits on a line linked to nothing the
    question names or the code printed (:func:`unconnected`: a two-step link may be unprinted), or
    says "not present" of a name the text names (:func:`named_after_all`).
    On the ``last`` iteration only the first three, facts about the text, refuse (the forced
    answer follows). ``whole_text=False`` leaves out the two rules that look the value up in the
    whole text (:func:`look_alike_source`, :func:`unconnected`): the engine's evidence checks judge
    it by the lines the code printed instead (:mod:`codur.rlm.evidence`, ``RLMConfig.check_evidence``)."""
    if name := echoes_question(question, answer):
        return (f"your answer was refused: {answer.strip()[:80]} repeats the question's {name}; answer with the "
                "value itself")
    if note := whole_text and look_alike_source(question, answer, context) or nameless(question, answer, context):
        return f"your answer was refused: {note}"
    linked = whole_text and unconnected(question, answer, context, printed)
    note = "" if last else linked or named_after_all(question, answer, context)
    return f"your answer was refused: {note}" if note and f"your answer was refused: {note}" not in told else ""


def nameless(question: str, value: str, context: object) -> str:
    """A note when the question asks about names (:func:`key_names`) of which no line of
    ``context`` holds one as a whole name, and ``value`` is a value all the same, not "not
    present": a value for something the text does not name cannot come from it. "" for a count
    question (:data:`HOW_MANY`: 0 is its answer then), or when a name is there."""
    names = key_names(question)
    if not isinstance(context, str) or not names or HOW_MANY.search(question) or says_absent(value) \
            or not value.strip():
        return ""
    if any(_whole(name).search(context) for name in names):
        return ""
    return (f"no line of the text names {' or '.join(names)} itself (only longer names, or none): a value for it "
            "cannot come from the text; say that it is not there")
