"""What a question asks for, and the value the printed evidence gives it (issues 40 and 54).

* :func:`asked_words` / :func:`echoes_words`: the words naming what a question asks for ("team" in
  "Which team was T-5631 assigned to?"), and an answer made only of them (the field, not its value).
* :func:`value_links`: the question's words that are values of the input's records, with their fields
  (``'card' is method``), shown in the first turn: value linking, as text-to-SQL links a question to
  a database's cells (Guo et al. 2019, "Towards Complex Text-to-SQL in Cross-Domain Database with
  Intermediate Representation"; Wang et al. 2020, "RAT-SQL").
* :func:`not_a_value`: a "which X" answer that is no value the field X has in the input's records
  (``280``, a group's count, for "Which payment method has the most failed payments?").
* :func:`other_field_value`: where the printed lines about the question give the asked field a
  value, the answer is that value, not a neighbour on its line. The asked field is found in the
  forms records are printed in: ``team juniper``, ``warehouse=W-84``, ``"city": "Lyon"``,
  ``'home_depot': 'Trieste'`` (a Python dict, a ``records`` row), a field name the asked word is a
  part of (:func:`name_parts`: ``depot`` in ``home_depot``, ``homeDepot``), and a CSV / TSV row
  under its printed header line (:func:`table_rows`: the column whose name holds the word).

This is answer typing by the slot the question names, after the lexical answer type of question
answering (Murdock et al. 2012, "Typing candidate answers using type coercion", IBM Journal of
Research and Development 56(3/4)). No model call here.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

from codur.rlm.evidence import ID, clip, is_aggregate, names_whole, printed_lines
from codur.rlm.notes import whole_name
from codur.rlm.provenance import key_names, printed_items, says_absent, unwrap
from codur.rlm.records import Records, records
from codur.rlm.table import compared

#: the words naming what a question asks for: after "which / what" and "answer with the"
_ASKED = re.compile(r"\b(?:which|what)\s+([\w-]+(?:\s+[\w-]+)?)"
                    r"|\banswer with (?:the|a|an|its)\s+([\w-]+(?:\s+[\w-]+)?)", re.IGNORECASE)
_NOT_NOUNS = frozenset({"is", "was", "are", "were", "does", "did", "do", "has", "had", "have", "of", "in", "the", "a"})
_WORD = re.compile(r"[A-Za-z][\w-]*")
#: a field and its value: ``key=value``, ``key: value``, ``"key": "value"``, ``'key': 'two words'``
_KEYED = re.compile(r"""(?<![\w-])(["']?)([A-Za-z_][\w-]*)\1\s*[=:]\s*"""
                    r"""(?:"([^"\n]*)"|'([^'\n]*)'|([A-Za-z0-9][\w.@/+-]*))""")
#: a column name of a printed header line (``parcel_id``, ``homeDepot``, ``weight.g``); no space, so
#: that prose with commas ("found 3 lines, e.g.") is no header
_COLUMN = re.compile(r"[A-Za-z_][\w.-]{0,39}")
_DELIMITERS = ("\t", ",", ";")
#: records(context) is offered first when at least this share of the input's lines are records
RECORDS_SHARE = 0.8
#: distinct values kept per field by :func:`field_values`; a field with more is not judged by them
FIELD_VALUES = 2_000
_WHICH = re.compile(r"\b(?:which|what)\b", re.IGNORECASE)


def asked_ranks(question: str) -> dict[str, int]:
    """The words naming what ``question`` asks for, lower case, each with the number of asking
    phrases that name it (after "which / what" and "answer with the"): ``{"team": 2, "name": 1}``
    for "Which team was T-5631 assigned to? Answer with the team name"."""
    ranks: dict[str, int] = {}
    for m in _ASKED.finditer(question):
        for word in {w.lower() for group in m.groups() if group for w in group.split()} - _NOT_NOUNS:
            ranks[word] = ranks.get(word, 0) + 1
    return ranks


def asked_words(question: str) -> set[str]:
    """The words naming what ``question`` asks for, lower case (:func:`asked_ranks`): ``{"team", "name"}``
    for "Which team was T-5631 assigned to? Answer with the team name"."""
    return set(asked_ranks(question))


def echoes_words(question: str, answer: str) -> bool:
    """True when a short ``answer`` (at most 3 words, no digit) is made only of the words naming what the
    question asks for (:func:`asked_words`): ``team`` for "Which team was T-5631 assigned to? Answer
    with the team name", ``name``, ``method`` for "Which payment method ...": the field, not its value.
    "not present" and yes / no are never echoes."""
    text = unwrap(answer)
    words = _WORD.findall(text)
    if not words or len(words) > 3 or re.search(r"\d", text) or says_absent(text) \
            or text.lower() in ("yes", "no", "true", "false"):
        return False
    return all(w.lower() in asked_words(question) for w in words)


def name_parts(name: str) -> set[str]:
    """A field name and its parts, lower case, split at ``_``, ``-``, ``.``, spaces and camelCase:
    ``{"home_depot", "home", "depot"}`` for ``home_depot``; ``homeDepot`` gives ``home`` and ``depot`` too."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return {name.lower(), *(part.lower() for part in re.split(r"[_\-.\s]+", spaced) if part)}


def _header(line: str) -> tuple[str, list[str]] | None:
    """(delimiter, column names) when ``line`` is a CSV / TSV header: 2+ distinct names, no id among them."""
    for delimiter in _DELIMITERS:
        if delimiter not in line:
            continue
        cells = [cell.strip() for cell in next(csv.reader([line], delimiter=delimiter))]
        if len(cells) >= 2 and len(set(cells)) == len(cells) \
                and all(_COLUMN.fullmatch(cell) and not ID.search(cell) for cell in cells):
            return delimiter, cells
    return None


def _row(header: tuple[str, list[str]], line: str) -> dict[str, str] | None:
    """``line`` read as a row under ``header`` (delimiter, columns): {column: cell}, or None when it has
    another number of cells."""
    delimiter, columns = header
    cells = next(csv.reader([line], delimiter=delimiter)) if delimiter in line else []
    return dict(zip(columns, (c.strip() for c in cells), strict=True)) if len(cells) == len(columns) else None


def table_rows(outputs: Iterable[str]) -> list[tuple[str, dict[str, str]]]:
    """The CSV / TSV rows printed under a header line in the same output: (the row's line, {column:
    cell}). A line with the header's delimiter and as many cells is a row of it; another header line
    starts a new table. Quoted cells may hold the delimiter (``"left at door, signed"``)."""
    rows = []
    for out in outputs:
        header: tuple[str, list[str]] | None = None
        for line in printed_items(out or ""):
            if header and (row := _row(header, line)):
                rows.append((line, row))
                continue
            header = _header(line) or header
    return rows


def input_rows(context: object, lines: Iterable[str]) -> list[tuple[str, dict[str, str]]]:
    """The printed ``lines`` that are rows of a CSV / TSV table of the input (``context``, a str), read
    by that table's header: the first line of the blank-line-separated block holding the line, when
    it is a header (:func:`table_rows`) and the line has as many cells. ``grep`` prints a table's
    rows without its header; the input still has it."""
    if not isinstance(context, str):
        return []
    rows = []
    for line in lines:
        at = _line_at(context, line) if any(d in line for d in _DELIMITERS) else -1
        gap = context.rfind("\n\n", 0, at) if at > 0 else -1
        start = gap + 2 if gap >= 0 else 0
        end = context.find("\n", start)
        header = _header(context[start:end]) if 0 <= start < end < at else None
        if header and (row := _row(header, line)):
            rows.append((line, row))
    return rows


def _line_at(text: str, line: str) -> int:
    """Where ``line`` is a whole line of ``text``, or -1."""
    at = text.find(line)
    while at >= 0:
        end = at + len(line)
        if (at == 0 or text[at - 1] == "\n") and (end == len(text) or text[end] in "\r\n"):
            return at
        at = text.find(line, at + 1)
    return -1


def _after(word: str) -> re.Pattern[str]:
    """The value after a field word: ``warehouse=W-84``, ``team juniper``, ``"city": "Lyon"``."""
    return re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])[\"']?\s*[=:]?\s*[\"']?([A-Za-z0-9][\w.@/+-]*)",
                      re.IGNORECASE)


def _before(word: str) -> re.Pattern[str]:
    """The value just before a field word, white space between: ``falcon team``."""
    return re.compile(rf"([A-Za-z0-9][\w.@/+-]*)[\"']?[ \t]+{re.escape(word)}(?![\w-])", re.IGNORECASE)


def slot_values(word: str, lines: list[str], rows: list[tuple[str, dict[str, str]]]) -> Iterator[tuple[str, str]]:
    """(value, line) for each value ``lines`` and table ``rows`` give the field ``word`` names: written
    after the word (``team juniper``, ``city=Lyon``), the value of a key the word is a part of
    (:func:`name_parts`: ``'home_depot': 'Trieste'``), a row's cell in such a column."""
    for line in lines:
        for value in _after(word).findall(line):
            yield value, line
        for m in _KEYED.finditer(line):
            value = next((v for v in m.group(3, 4, 5) if v is not None), "").strip()
            if value and word in name_parts(m.group(2)):
                yield value, line
    for line, row in rows:
        yield from ((cell, line) for column, cell in row.items() if cell and word in name_parts(column))


def other_field_value(question: str, answer: str, outputs: Iterable[str], context: object = None) -> str:
    """A note when printed lines about the question give the field it asks for a value and ``answer``
    is none of them; "" otherwise (also with no such line, field or id, for "not present" and aggregates).

    The lines about the question: the printed lines (``outputs``) naming one of its ids whole
    (:func:`codur.rlm.provenance.key_names`), and those naming an id such a line gives (a join's
    intermediate value); CSV / TSV rows among them read by their printed header (:func:`table_rows`), or
    else by the header of their table in the input (``context``, :func:`input_rows`).
    On them, the value of a field a word naming what the question asks for names
    (:func:`slot_values`) is the asked field's value; a value just before the word (``falcon team``)
    counts too. The words the question names most often are tried first ("depot", named twice in
    "At which depot ...? Answer with the depot name", before "name"), the next only when those give
    no value but ids. An answer naming none of the values, or naming the question's id or an intermediate
    id, is a neighbour on the line (a timestamp, a verb, the intermediate ticket, the courier's name).
    """
    outputs = list(outputs)
    value, ranks, names = unwrap(answer), asked_ranks(question), key_names(question)
    if not value or not ranks or not names or says_absent(value) or is_aggregate(question):
        return ""
    lines = printed_lines(outputs)
    ids = {m.group(0).lower() for line in lines if names_whole(line, names) for m in ID.finditer(line)}
    ids = sorted(ids | {n.lower() for n in names})
    about = [line for line in lines if names_whole(line, ids)]  # the question's lines and its hops'
    rows = [(line, row) for line, row in table_rows(outputs) if names_whole(line, ids)]
    read = {line for line, _ in rows}
    rows += input_rows(context, [line for line in about if line not in read])
    given, near, seen = _slot(ranks, about, rows, ids)
    if not given or value.lower() in seen:
        return ""  # no value to judge by, or the answer is one (an id the question asks for too)
    if any(m.group(0).lower() in ids for m in ID.finditer(value)) or names_whole(value, names):
        return _field_note(value, given)  # the question's id or an intermediate id is no field's value
    return "" if any(whole_name(v).search(value) for v in set(given) | near) else _field_note(value, given)


def _slot(ranks: dict[str, int], about: list[str], rows: list[tuple[str, dict[str, str]]],
          ids: list[str]) -> tuple[dict[str, tuple[str, str]], set[str], set[str]]:
    """The asked field's values on the lines ``about`` the question and its table ``rows``, by the
    words of :func:`asked_ranks` the question names most first: ({value: (word, line)}, the values just
    before such a word, every value seen lower case). A rank whose words give only ids (the question's
    or a hop's: ``member=M-72`` for "the member name") gives way to the next."""
    skip, seen = set(ranks) | _NOT_NOUNS, set()
    given: dict[str, tuple[str, str]] = {}
    near: set[str] = set()
    for rank in sorted(set(ranks.values()), reverse=True):
        words = sorted(w for w, r in ranks.items() if r == rank)
        slot = [(v, w, line) for w in words for v, line in slot_values(w, about, rows) if v.lower() not in skip]
        seen |= {v.lower() for v, _, _ in slot}
        given = {v: (word, line) for v, word, line in slot if v.lower() not in ids}
        near = {v for line in about for w in words for v in _before(w).findall(line)}
        if given or near:
            break
    return given, near, seen


def _field_note(value: str, given: dict[str, tuple[str, str]]) -> str:
    shown = "; ".join(f"{clip(line)!r} gives {word} {v}" for v, (word, line) in list(given.items())[:3])
    return (f"{clip(value, 60)} is not the value of the field the question asks for on the printed lines about "
            f"it: {shown}. Answer with the value of that field, from the line the question's steps lead to")


@lru_cache(maxsize=1)
def _records_of(context: str) -> Records | None:
    try:
        recs = records(context)
    except (ValueError, TypeError, RecursionError, MemoryError):
        return None
    if len(recs) < 10 or len(recs) < RECORDS_SHARE * (len(recs) + len(recs.unparsed)):
        return None
    return recs


def records_of(context: Any) -> Records | None:
    """What ``records(context)`` reads, read once per input (the first turn and the checks share it; do not
    change it); None when the input is not text, or fewer than :data:`RECORDS_SHARE` of its lines (and
    fewer than 10) are records: then the searches are the way in."""
    return _records_of(context) if isinstance(context, str) else None


@lru_cache(maxsize=2)
def field_values(context: str) -> dict[str, frozenset[str] | None]:
    """Each field of ``records(context)`` with its values as text, lower case (as ``where`` compares
    them); None for a field with over :data:`FIELD_VALUES` values; {} when the input is no records
    (:func:`records_of`)."""
    if (recs := records_of(context)) is None:
        return {}
    seen: dict[str, set[str]] = {}
    for record in recs:
        for name, value in record.items():
            values = seen.setdefault(name, set())
            if len(values) <= FIELD_VALUES:
                values.add(compared(value))
    return {name: None if len(v) > FIELD_VALUES else frozenset(v) for name, v in seen.items()}


def not_a_value(question: str, answer: str, context: object) -> str:
    """A note when ``question`` asks "which / what X" and the input's records have a field named by X
    (:func:`asked_ranks`, most named first; :func:`name_parts`) of which ``answer`` is no value; ""
    otherwise (no such field, an answer saying "not present", input that is no records). The second
    program of "Which payment method has the most payments with the status failed?" printed the top
    group's count, 280, and two programs agreed on it."""
    value = unwrap(answer).strip()
    if not isinstance(context, str) or not value or says_absent(value) or not _WHICH.search(question):
        return ""
    fields = field_values(context)
    ranks = asked_ranks(question)
    for rank in sorted(set(ranks.values()), reverse=True):
        words = {w for w, r in ranks.items() if r == rank}
        named = [f for f, values in fields.items() if words & name_parts(f) and values is not None]
        if named:
            if any(compared(value) in fields[f] for f in named):
                return ""
            shown = ", ".join(sorted(fields[named[0]])[:6])
            return (f"{clip(value, 60)} is not a value of the field {named[0]!r} the question asks for (its values "
                    f"include {shown}): answer with the {named[0]} itself, e.g. the key of the top group "
                    "(group_count(field).most_common(1)[0][0]), not its count")
    return ""


@lru_cache(maxsize=4)
def linked_values(question: str, context: object) -> dict[str, dict[str, int]]:
    """The words of ``question`` (its ids, its words of 3 letters or more, and each two neighbouring
    words), lower case and in the question's order, that are a whole value of the records of
    ``context``, each with the fields holding it and how many records; a word held by more than 2
    fields left out; {} when the input is no records (:func:`field_values`) or no word is a value."""
    if not isinstance(context, str) or not field_values(context):
        return {}
    words = [w.lower() for w in [*key_names(question), *re.findall(r"\b[A-Za-z]+\d+\b|[A-Za-z]{3,}", question)]]
    plain = re.findall(r"[A-Za-z]+", question)
    words += [f"{a} {b}".lower() for a, b in zip(plain, plain[1:], strict=False)]
    wanted = set(words)
    hits: dict[str, dict[str, int]] = {}
    for record in records_of(context) or ():
        for name, value in record.items():
            if isinstance(value, str) and (text := compared(value)) in wanted:
                held = hits.setdefault(text, {})
                held[name] = held.get(name, 0) + 1
    return {w: hits[w] for w in dict.fromkeys(words) if w in hits and len(hits[w]) <= 2}


def value_links(question: str, context: object, limit: int = 6) -> str:
    """:func:`linked_values` said in words, at most ``limit``: ``'card' is method (812 records); 'ACC-61745'
    is account (4 records)``; "" for none."""
    said = [f"{w!r} is {' or '.join(f'{n} ({c:,} records)' for n, c in fields.items())}"
            for w, fields in linked_values(question, context).items()]
    return "; ".join(said[:limit])


def names_in_fields(question: str, context: object) -> bool:
    """Whether the records of ``context`` hold what ``question`` asks about in their fields: each of its
    ids (:func:`codur.rlm.provenance.key_names`) is a field's value, or, with no id, one of its words is.
    False when the ids are only inside free text (``T-5631 assigned to team falcon`` read as a
    ``message``): then a search of the text is the way in, not a ``where``."""
    linked = linked_values(question, context)
    ids = [n.lower() for n in key_names(question)]
    return all(i in linked for i in ids) if ids else bool(linked)
