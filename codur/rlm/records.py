"""``records(text)``: a long input read once as a table, so a count, a sum, a group-by or a join is one
short call chain a small model can copy (issue 54).

Standard library only: the sandbox worker (:mod:`codur.rlm.worker`) imports this module through its stub
packages. The text is read block by block (blocks are separated by blank lines) and line by line:

* a JSON array of objects (the whole text or a block), or one JSON object per line; a nested
  object's fields are named by their own key when it is the object's only field of that name
  (``{"result": {"status": "failed"}}``: ``status``), else by their dotted path (``result.status``);
  ``record["result"]`` is the nested object itself (its fields named the same way), and an empty one
  in a record without it when other records have it, so ``r["result"]["status"]`` reads None there;
* a CSV / TSV / ``;`` / ``|`` table: a header line of field names, then rows with as many cells
  (quoted cells may hold the delimiter); a row with another number of cells is unparsed;
* any other line: an optional leading ISO timestamp (field ``time``), an optional level word
  (``INFO``, ``[error]``, ``WARN``...: field ``level``, upper case), ``key=value`` pairs (a value may be
  quoted), and the rest of the words as ``message``. A line with none of these is unparsed.

Every record keeps its ``raw`` line and its ``line`` number (1-based). Values are typed: ``int``,
``float``, ``datetime`` for ISO times, else ``str``. Lines that are no record are kept in
``Records.unparsed``, never dropped silently. The query methods are in :mod:`codur.rlm.table`.
This is the query-over-structure step of table question answering (Cheng et al. 2023, "Binding
Language Models in Symbolic Languages"): the model writes the query, deterministic code runs it.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache

from codur.rlm.table import Record, Records

__all__ = ["LazyRecords", "Record", "Records", "records", "typed"]

_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
_LEVELS = {"TRACE", "DEBUG", "INFO", "NOTICE", "WARN", "WARNING", "ERROR", "ERR", "FATAL", "CRITICAL"}
_LEVEL = re.compile(r"[\[(]?([A-Za-z]{3,8})[\])]?:?")
_PAIR = re.compile(r"""([A-Za-z_][\w.-]*)=("(?:[^"\\]|\\.)*"|'[^']*'|[^\s,;]*)""")
_INT = re.compile(r"[-+]?(?:0|[1-9]\d*)")
_FLOAT = re.compile(r"[-+]?\d+\.\d+(?:[eE][-+]?\d+)?")
_NAME = re.compile(r"[A-Za-z_][\w .()/-]{0,40}")
_DELIMITERS = (",", "\t", ";", "|")


def typed(value):
    """``value`` as an ``int``, a ``float`` or a ``datetime`` (ISO 8601) when it is written as one, else
    unchanged (ids with leading zeros, ``007``, stay text)."""
    return _typed_text(value) if isinstance(value, str) else value


@lru_cache(maxsize=1 << 18)
def _typed_text(value: str):
    """:func:`typed` of a string, remembered: a long input repeats its values (levels, states, numbers)."""
    text = value.strip()
    if not text or not (text[0].isdigit() or text[0] in "+-"):  # most text: no number, no time
        return value
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    if len(text) >= 16 and _TIME.fullmatch(text):
        try:
            return datetime.fromisoformat(text.replace("Z", "+00:00").replace(",", "."))
        except ValueError:
            return value
    return value


def _paths(obj: dict, prefix: tuple = ()) -> list[tuple[tuple, object]]:
    out = []
    for key, value in obj.items():
        path = (*prefix, str(key))
        out += _paths(value, path) if isinstance(value, dict) else [(path, value)]
    return out


def _flat(obj: dict) -> dict:
    """A JSON object's fields, nested objects flattened: a nested field is named by its own key when no
    other field of the object has that key (``{"result": {"status": "failed"}}`` -> ``status``, which a
    ``where(status=...)`` can name), else by its dotted path (``user.id`` beside ``id``)."""
    paths = _paths(obj)
    leaves = Counter(path[-1] for path, _ in paths)
    return {path[-1] if leaves[path[-1]] == 1 else ".".join(path): typed(value) for path, value in paths}


def _line_record(line: str) -> dict | None:
    """The fields of one log-like line, or None when it has no timestamp, level or ``key=value``."""
    fields, rest = {}, line.strip()
    stamp = _TIME.match(rest)
    if stamp:
        fields["time"] = typed(stamp.group(0))
        rest = rest[stamp.end():].lstrip()
    level = _LEVEL.match(rest)
    if level and level.group(1).upper() in _LEVELS and (level.end() == len(rest) or rest[level.end()] == " "):
        fields["level"] = level.group(1).upper()
        rest = rest[level.end():].lstrip()
    words = []
    last = 0
    for pair in _PAIR.finditer(rest):
        words.append(rest[last:pair.start()])
        value = pair.group(2)
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        fields[pair.group(1)] = typed(value)
        last = pair.end()
    words.append(rest[last:])
    message = " ".join(" ".join(words).split())
    if not fields:
        return None
    if message:
        fields.setdefault("message", message)
    return fields


def _header(line: str) -> tuple[str, list[str]] | None:
    """(delimiter, names) when ``line`` is a table's header: 2+ distinct field names, no ``=``."""
    if "=" in line or line.lstrip().startswith(("{", "[")):
        return None
    for delimiter in _DELIMITERS:
        if delimiter in line:
            names = [name.strip() for name in next(csv.reader([line], delimiter=delimiter))]
            if len(names) >= 2 and len(set(names)) == len(names) and all(_NAME.fullmatch(n) for n in names):
                return delimiter, names
    return None


def _table(lines: list[tuple[int, str]], out: Records) -> bool:
    """Read ``lines`` (numbered) as a table with a header when they are one; False when they are not."""
    head = _header(lines[0][1])
    if head is None or len(lines) < 2:
        return False
    delimiter, names = head
    texts = [text for _, text in lines[1:]]
    rows = list(csv.reader(texts, delimiter=delimiter))
    if len(rows) != len(texts):  # a quoted cell ran over a line end: read each line on its own
        rows = [next(csv.reader([text], delimiter=delimiter), []) for text in texts]
    if len(rows[0]) != len(names):
        return False
    width, made = len(names), 0
    for (number, text), cells in zip(lines[1:], rows, strict=True):
        if len(cells) == width:
            out.items.append(Record(zip(names, map(_typed_text, cells), strict=True), text, number))
            made += 1
        else:
            out.unparsed.append(text)
    out.formats["csv" if delimiter == "," else "table"] += made
    return True


def _json_array(block: str, first: int, out: Records) -> bool:
    try:
        items = json.loads(block)
    except ValueError:
        return False
    if not isinstance(items, list) or not items or not all(isinstance(item, dict) for item in items):
        return False
    for item in items:
        out.add(_json_record(item, json.dumps(item), first), "json")
    return True


def _json_record(obj: dict, raw: str, line: int) -> Record:
    """A JSON object's record; its nested objects kept whole for ``record["result"]["status"]``."""
    record = Record(_flat(obj), raw, line)
    if nested := {key: value for key, value in obj.items() if isinstance(value, dict)}:
        record.nested = nested
    return record


def _read_line(number: int, line: str, out: Records) -> None:
    """One line outside a table: a JSON object, a log-like line, or an unparsed line."""
    if line.lstrip().startswith("{"):
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            out.add(_json_record(obj, line, number), "json")
            return
    fields = _line_record(line)
    if fields is None:
        out.unparsed.append(line)
    else:
        out.add(Record(fields, line, number), "key=value" if "=" in line else "log")


def _blocks(text: str):
    """(numbered lines) of each block of ``text``; blocks end at blank lines."""
    block: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            block.append((number, line))
        elif block:
            yield block
            block = []
    if block:
        yield block


def records(text: str) -> Records:
    """``text`` read as records (the formats of the module's docstring), in the order of the text.

    Args:
        text: the long input (``context``); a list of lines is joined first.

    Raises:
        TypeError: ``text`` is neither text nor a list of lines.
    """
    if isinstance(text, list | tuple):
        text = "\n".join(map(str, text))
    if not isinstance(text, str):
        raise TypeError(f"records(text) needs text, not {type(text).__name__}")
    out = Records()
    for block in _blocks(text):
        if block[0][1].lstrip().startswith("[") and \
                _json_array("\n".join(line for _, line in block), block[0][0], out):
            continue
        if _table(block, out):
            continue
        for number, line in block:
            _read_line(number, line, out)
    if objects := frozenset(key for r in out.items for key in getattr(r, "nested", ())):
        for record in out.items:  # a record without one of them reads it as an empty object
            record.objects = objects
    return out


Records.reader = staticmethod(records)
Record.flatten = staticmethod(_flat)


class LazyRecords:
    """The :class:`Records` ``read()`` returns, read on first use and then kept: the REPL binds ``recs``
    to one before any block runs, so the prompt's ``recs.where(...)`` works in a block that leaves out
    ``recs = records(context)`` (the 1.5B model did, at every iteration of the ledger lookup: NameError),
    and an input no block queries is never parsed."""

    def __init__(self, read: Callable[[], Records]) -> None:
        self._read, self._records = read, None

    def _loaded(self) -> Records:
        if self._records is None:
            self._records = self._read()
        return self._records

    def __getattr__(self, name):
        return getattr(self._loaded(), name)

    def __len__(self) -> int:
        return len(self._loaded())

    def __iter__(self):
        return iter(self._loaded())

    def __getitem__(self, index):
        return self._loaded()[index]

    def __call__(self, text=None) -> Records:
        return self._loaded()(text)

    def __bool__(self) -> bool:
        return bool(self._loaded())

    def __repr__(self) -> str:
        return repr(self._loaded())
