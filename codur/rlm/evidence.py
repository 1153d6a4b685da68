"""Answer checks from the evidence the model's own code printed (issue 40), for any question.

An answer is judged by the lines the run's code printed, not by a search of the whole text:

* **evidence** (:func:`unsupported`): the value must be on a printed line (or printed as the value
  itself); when the question names ids (:func:`codur.rlm.provenance.key_names`), that line must
  name one of them as a whole name, or name an id that another printed line links to one of them
  (every hop of a join printed). A printed line naming only a longer name (``ACC-617451`` for
  ``ACC-61745``) is a look-alike's.
* **absence** (:func:`absence_unsearched`): "not present" is taken only after the run's code
  searched for the question's id (a string literal holding it) and printed no line naming it.
* **aggregates** (:func:`is_aggregate`; :class:`codur.rlm.aggregates.SecondProgram`): a count,
  sum, most / least, distinct or average is taken when two programs that work differently agree:
  program-of-thought answers checked by self-consistency over independent programs (Chen et al.
  2022, "Program of Thoughts Prompting: Disentangling Computation from Reasoning in Numerical
  Reasoning Tasks"; Wang et al. 2023, "Self-Consistency Improves Chain of Thought Reasoning in
  Language Models"), with the second program asked for a different method (a regex over lines
  versus a parse of fields) and samples of what it counted.

What the question asks for (the word "team" answered for "which team", a neighbour of the asked
field's value on its line) is judged in :mod:`codur.rlm.slots`. No model call here; the engine
(:mod:`codur.rlm.engine`) turns a note into one more turn.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from codur.core.pyast import parse_ast
from codur.rlm.notes import whole_name
from codur.rlm.provenance import HOW_MANY, NUMBER, key_names, printed_items, says_absent, unwrap

#: a question whose answer is computed over many lines: a count, a sum, an extreme, distinct values, a mean
AGGREGATE = re.compile(
    rf"{HOW_MANY.pattern}|\b(?:most|least|fewest|highest|lowest|largest|smallest|maximum|minimum|average|mean"
    r"|median|sum|distinct|unique)\b", re.IGNORECASE)
#: an id a line may share with another line: letters, a hyphen, then a digit (``o-28982``, ``ACC-4821``)
ID = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*-\d[\w-]*(?![\w-])")


def is_aggregate(question: str) -> bool:
    """True for a question whose answer is computed over many lines (how many, total, most, least,
    distinct, average...): its answer is checked by a second program, not by a line holding it."""
    return AGGREGATE.search(question) is not None


def is_number(answer: str) -> bool:
    """True when ``answer`` (quotes and a FINAL's wrapping removed) is one number: ``293``, ``1,204``, ``-3.5``."""
    return NUMBER.fullmatch(unwrap(answer)) is not None


def printed_lines(outputs: Iterable[str]) -> list[str]:
    """The lines of ``outputs`` (what code printed), a printed list of strings split into its items."""
    return [line for out in outputs for line in printed_items(out or "")]


#: a question asking for the bottom of a ranking
_LEAST = re.compile(r"\b(?:least|fewest|lowest|smallest|minimum)\b", re.IGNORECASE)


def shown_as_result(question: str, answer: str, outputs: Iterable[str]) -> bool:
    """True when a block printed ``answer`` (quotes and a FINAL's wrapping removed) as a result for
    ``question``: a line that is the value alone (quotes, brackets and a trailing count aside), or the
    key a printed ranking puts where the question looks (a ``Counter`` or a ``most_common()`` list print
    the keys by count: the first for "most", the last for "least", "fewest"...). A value read off
    elsewhere in a ranking is not a result."""
    end = -1 if _LEAST.search(question) else 0
    value = unwrap(answer).strip().lower()
    if not value:
        return False
    for out in outputs:
        for line in (out or "").splitlines():
            bare = line.strip().strip("[](){}'\" ").lower()
            if bare == value or re.fullmatch(rf"{re.escape(value)}['\"]?\s*[,:]\s*[-\d.]+", bare):
                return True
            keys = _ranking(line)
            if keys and keys[end].strip().lower() == value:
                return True
    return False


def _ranking(line: str) -> list[str]:
    """The keys of a printed ranking, in its order: a ``Counter``'s repr or a ``most_common()`` list of
    (key, count) pairs (both sorted by count); [] for any other line (a plain dict keeps no order of count)."""
    text = line.strip()
    counter = text.startswith("Counter(") and text.endswith(")")
    try:
        value = ast.literal_eval(text[len("Counter("):-1] if counter else text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return []
    if counter and isinstance(value, dict):
        return [str(key) for key in value]
    if isinstance(value, list) and value and all(isinstance(p, tuple) and len(p) == 2 for p in value):
        return [str(key) for key, _ in value]
    return []


def string_literals(code: str) -> list[str]:
    """The string constants of ``code`` (what the code searched for, compared with or filtered on),
    in order, except the literal arguments of ``print`` (``print("found", n)``; a search inside
    print, ``print(grep("x"))``, counts); [] for code that does not parse."""
    try:
        tree = parse_ast(code)
    except SyntaxError:
        return []
    printed: set[int] = set()  # print's own literal arguments ("found", f"{n} lines"), not a search inside it
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            for arg in node.args:
                parts = arg.values if isinstance(arg, ast.JoinedStr) else [arg]
                printed.update(id(part) for part in parts if isinstance(part, ast.Constant))
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in printed and node.value.strip()]


def _plain(literal: str) -> str:
    """A regex literal's plain text: escapes and word-boundary marks dropped (``\\bACC-1\\b`` → ``ACC-1``)."""
    return re.sub(r"\\[bBdDwWsS]|\(\?[^)]*\)|[\\^$()\[\]?*+{}|]", "", literal)


def searched_for(code: str, name: str) -> bool:
    """True when a string literal of ``code`` (outside print) holds ``name``, ignoring case and a
    regex's escapes: the code looked for it."""
    key = name.lower()
    return any(key in _plain(literal).lower() for literal in string_literals(code))


def names_whole(line: str, names: list[str]) -> bool:
    return any(whole_name(name).search(line) for name in names)


def _longer(line: str, name: str) -> list[str]:
    return [m.group(0) for m in re.finditer(rf"[\w-]*{re.escape(name)}[\w-]*", line, re.IGNORECASE)
            if m.group(0).lower() != name.lower()]


def clip(text: str, limit: int = 160) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + " …"


def bounded_search(codes: Iterable[str], name: str) -> bool:
    """True when a string literal of ``codes`` searches for ``name`` bounded on both sides, so that a
    longer name cannot match: a character other than a letter, digit, ``_`` or ``-`` beside it
    (``'service=billing-46 port='``, ``'"account": "ACC-1"'``), or ``\\b`` / ``(?<![\\w-])`` /
    ``(?![\\w-])``. ``grep('billing-46')`` is not bounded: it finds ``billing-460`` too. A keyword
    argument that is ``name`` whole, ``recs.where(book="B-204")``, is an exact field match: bounded."""
    codes = list(codes)
    forms = {name.lower(), re.escape(name).lower()}
    return any(_bounded(literal.lower(), form) for code in codes for literal in string_literals(code)
               for form in forms) or any(_field_equal(code, name) for code in codes)


def _field_equal(code: str, name: str) -> bool:
    """True when a call in ``code`` passes ``name`` whole as a keyword argument (``where(id="O-1")``)."""
    try:
        tree = parse_ast(code)
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(kw.value, ast.Constant) and str(kw.value.value).lower() == name.lower()
               for node in ast.walk(tree) if isinstance(node, ast.Call) for kw in node.keywords)


_OPEN = ("\\b", "(?<![\\w-])", "(?<!\\s)", "\\s", " ")
_CLOSE = ("\\b", "(?![\\w-])", "(?!\\s)", "\\s", " ")


def _bounded(literal: str, form: str) -> bool:
    """True when ``form`` occurs in ``literal`` with a boundary on each side (:func:`bounded_search`)."""
    start = literal.find(form)
    while start >= 0:
        end = start + len(form)
        head, tail = literal[:start], literal[end:]
        opened = head.endswith(_OPEN) or bool(head) and not re.match(r"[\w\-(|\[^.*+?\\]", head[-1])
        closed = tail.startswith(_CLOSE) or bool(tail) and not re.match(r"[\w\-)|\]$.*+?{\\]", tail[0])
        if opened and closed:
            return True
        start = literal.find(form, start + 1)
    return False


def unsupported(question: str, answer: str, outputs: Iterable[str], codes: Iterable[str] = ()) -> str:
    """A note when no line the run's code printed (``outputs``) supports ``answer``; "" when one
    does, or the answer is not a short value (a "not present", an empty one, over 80 characters).

    Supported: the value is on a printed line as a whole token (or is the whole line); and when the
    question names ids (:func:`codur.rlm.provenance.key_names`) and asks no aggregate, that line
    names one of them whole, or names an id (letters, hyphen, digit) that another printed line naming
    one of them holds: the intermediate value of a join, printed too (the order of a user, then that
    order's warehouse); or the value printed alone was computed by code (``codes``) that searched for
    the question's id bounded as a whole name (:func:`bounded_search`: the constraint stated in code).
    A line naming the id only inside a longer name is a look-alike's line.
    """
    value = unwrap(answer)
    if not value or len(value) > 80 or "\n" in value or says_absent(value):
        return ""
    lines = printed_lines(outputs)
    token = whole_name(value)
    support = [line for line in lines if line.strip() == value or token.search(line)]
    if not support:
        return (f"{clip(value, 60)} is on no line your code printed: print the line it comes from (or compute and "
                "print it), then answer from that output")
    names = key_names(question)
    if not names or is_aggregate(question):
        return ""
    if any(names_whole(line, names) for line in support):
        return ""
    if any(bounded_search(codes, name) for name in names) and any(line.strip() == value for line in support):
        return ""  # a value the code computed, from a search for the question's id as a whole name
    keyed = [line for line in lines if names_whole(line, names)]
    hops = {m.group(0).lower() for line in keyed for m in ID.finditer(line)} - {n.lower() for n in names}
    if any(m.group(0).lower() in hops for line in support for m in ID.finditer(line)):
        return ""  # every hop printed: a line naming the question's id gives an id, whose line gives the value
    return _why_unsupported(value, support, names, keyed)


def _why_unsupported(value: str, support: list[str], names: list[str], keyed: list[str]) -> str:
    """The note for ``value``, printed on the lines ``support`` none of which names the question's
    ``names`` (``keyed``: the printed lines that do): a look-alike's line, or the step to print."""
    name = names[0]
    for line in support:
        for key in names:
            if others := _longer(line, key):
                return (f"{clip(value, 60)} is on the printed line {clip(line)!r}, which names {others[0]}, not "
                        f"{key}: a look-alike's value. Find the line naming {key} itself, or answer NOT PRESENT if "
                        "your search finds none")
    if keyed:
        return (f"{clip(value, 60)} is on printed lines that name no {' or '.join(names)} and no id that the printed "
                f"line(s) naming it give (the first: {clip(keyed[0])!r}). For a second step, print the line of the "
                "id that line gives, then answer from it")
    return (f"{clip(value, 60)} is on printed lines that name no {' or '.join(names)}: print the line naming {name} "
            "first (and, for a second step, the line of the id it gives), then answer from them")


def absence_unsearched(question: str, codes_and_outputs: Iterable[tuple[str, str, bool]]) -> str:
    """A note refusing "not present" unless the run's code searched for the question's id and
    printed no line naming it; "" to accept (also for a question naming no id).

    ``codes_and_outputs``: (code, stdout, failed) of every block run. A block counts as a search
    for a name when a string literal of its code holds it (:func:`searched_for`) and it ran without
    error; it found nothing when no printed line names it as a whole name.
    """
    names = key_names(question)
    if not names:
        return ""
    found: list[tuple[str, str]] = []
    for name in names:
        for code, stdout, failed in codes_and_outputs:
            if failed or not searched_for(code, name):
                continue
            hits = [line for line in printed_lines([stdout]) if whole_name(name).search(line)]
            if not hits:
                return ""
            found.append((name, hits[0]))
    if found:
        name, line = found[0]
        return (f"your search for {name} printed a line naming it: {clip(line)!r}; read what it says before "
                "answering that it is not there")
    return (f"NOT PRESENT is taken only after a search for {names[0]} that finds no line: run "
            f"print(grep(r\"(?<![\\w-]){re.escape(names[0])}(?![\\w-])\")) and answer from what it prints")
