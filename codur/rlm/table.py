"""The query side of ``records(text)`` (:mod:`codur.rlm.records`): :class:`Record`, :class:`Records` and
the predicates ``startswith``, ``contains``, ``one_of``, ``above``, ``below`` a ``where`` takes.

Standard library only (imported inside the sandbox worker). Equality in ``where`` and ``join`` ignores
case and type (``where(port="41468")`` matches the int 41468, ``level="error"`` matches ``ERROR``); a
time field matches a string that begins it (``time="2026-05-03"``: that day).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import lru_cache

__all__ = ["Record", "Records", "above", "below", "compared", "contains", "one_of", "startswith"]

EXAMPLES = 3


@lru_cache(maxsize=4096)
def _plain(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")


class Record(dict):
    """One record's fields; a missing field reads as None. ``raw``: its line; ``line``: its number.

    A name the record lacks reads its one field of that name written another way (:meth:`field`):
    ``r["result_status"]``, ``r.get("Result.Status")`` and ``where(result_status=...)`` read the field
    ``result.status``, which no keyword argument can name; ``status`` reads it too when it is the
    record's only field whose last dotted part is ``status``, and ``meta.color`` or ``meta__color`` (the
    keyword path of an ORM's query, which the 1.5B model writes) reads ``color`` (a
    nested field :func:`codur.rlm.records.records` named by its own key). A JSON record reads the name of
    a nested object as that object (``r["result"]["status"]``), and as an empty one when it lacks it but
    other records of its input have it (a build's ``result`` on a runner's record: None inside)."""

    def __init__(self, fields: dict, raw: str = "", line: int = 0) -> None:
        super().__init__(fields)
        self.raw, self.line = raw, line

    def field(self, key) -> str | None:
        """The record's own field name ``key`` means: ``key`` itself, else the one field equal to it
        ignoring case and punctuation, or whose last dotted part is; None when none or several are."""
        if key in self or not isinstance(key, str):
            return key if key in self else None
        last = re.split(r"\.|__", key)[-1]  # meta.color and meta__color (an ORM's keyword path): color too
        for want in dict.fromkeys((_plain(key), _plain(last))):
            found = [k for k in self if isinstance(k, str) and want in (_plain(k), _plain(k.rsplit(".", 1)[-1]))]
            if found:
                return found[0] if len(found) == 1 else None
        return None

    def get(self, key, default=None):
        name = self.field(key)
        return default if name is None else dict.__getitem__(self, name)

    flatten: Callable[[dict], dict]  # :func:`codur.rlm.records._flat`, set by that module

    def __missing__(self, key):
        name = self.field(key)
        if name is not None:
            return dict.__getitem__(self, name)
        if key in getattr(self, "nested", ()):  # a JSON record's nested object, read whole
            return Record(Record.flatten(self.nested[key]), self.raw, self.line)
        if key in getattr(self, "objects", ()):  # other records have it: an empty one reads None inside
            return Record({}, self.raw, self.line)
        for other in getattr(self, "later", ()):  # first()'s record: the next record of its selection that has it
            if other.get(key) is not None:
                return other[key]
        return self.linked(key) if hasattr(self, "table") else None

    def linked(self, key):
        """``key``'s value on a record of the whole table that shares a field's value with this one: a
        build's ``runner_id`` names the runner's record, which has the ``region`` (a join's second hop,
        which the 1.5B model writes as ``where(build_id=X).first()["region"]``). Of the fields that lead
        to such a record, the one whose value the fewest records share (an id, not a status); None when
        no field leads to one. Read only by :meth:`Records.first`'s record."""
        best = None
        for name, value in dict.items(self):
            if value is None or isinstance(value, bool | float):
                continue
            sharing = self.table.sharing(name).get(compared(value), ())
            found = next((r.get(key) for r in sharing if r.get(key) is not None), None)
            if found is not None and (best is None or len(sharing) < best[0]):
                best = (len(sharing), found)
        return None if best is None else best[1]


def compared(value) -> str:
    """``value`` as ``where`` and ``join`` compare it: text, lower case, stripped; a whole float as its int
    (``3.0`` -> ``3``), a time in ISO form."""
    if isinstance(value, datetime):
        return value.isoformat().lower()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip().lower()


def same(value, wanted) -> bool:
    """Whether a field's ``value`` is ``wanted`` (a callable: its verdict; else equal ignoring case and
    type; a time: ``wanted`` begins it)."""
    if callable(wanted):
        try:
            return bool(wanted(value))
        except Exception:  # noqa: BLE001 - a predicate that fails on a value does not match it
            return False
    if value is None:
        return wanted is None
    if isinstance(value, datetime) and isinstance(wanted, str):
        return compared(value).startswith(wanted.strip().replace(" ", "T").lower())
    return value == wanted or compared(value) == compared(wanted)


def startswith(prefix: str) -> Callable:
    """A ``where`` predicate: the value begins with ``prefix`` (ignoring case)."""
    return lambda value: value is not None and compared(value).startswith(compared(prefix))


def contains(part: str) -> Callable:
    """A ``where`` predicate: the value holds ``part`` (ignoring case)."""
    return lambda value: value is not None and compared(part) in compared(value)


def one_of(*values) -> Callable:
    """A ``where`` predicate: the value is one of ``values``."""
    return lambda value: any(same(value, v) for v in values)


def above(limit: float) -> Callable:
    """A ``where`` predicate: a number greater than ``limit``."""
    return lambda value: isinstance(value, int | float) and value > limit


def below(limit: float) -> Callable:
    """A ``where`` predicate: a number less than ``limit``."""
    return lambda value: isinstance(value, int | float) and value < limit


def _shown(value):
    """An example value as the fields summary prints it: a time in ISO form, text up to 40 characters."""
    if isinstance(value, datetime):
        return value.isoformat()
    return value[:40] + "…" if isinstance(value, str) and len(value) > 40 else value


def _describe(constraint) -> str:
    name, wanted = constraint
    return f"{name}={wanted!r}" if not callable(wanted) else f"{name}=<{getattr(wanted, '__name__', 'test')}>"


class Records:
    """Records in the order of the text, and the lines that were none (``unparsed``).

    ``on_empty(note)`` is called when a ``where`` with 2+ constraints keeps nothing although each
    constraint alone keeps something (the note gives each one's count); the REPL shows it.
    ``Records.reader`` is :func:`codur.rlm.records.records`, set by that module (it builds on this
    one, so this one does not import it back).
    """

    reader: Callable[[str], Records]

    def __init__(self, items: Iterable[Record] = (), *, unparsed: list[str] | None = None,
                 formats: Counter | None = None, on_empty: Callable[[str], None] | None = None) -> None:
        self.items = list(items)
        self.unparsed = [] if unparsed is None else unparsed
        self.formats = Counter() if formats is None else formats
        self.on_empty = on_empty

    def add(self, record: Record, fmt: str) -> None:
        self.items.append(record)
        self.formats[fmt] += 1

    def _derived(self, items: Iterable[Record]) -> Records:
        derived = Records(items, unparsed=self.unparsed, formats=self.formats, on_empty=self.on_empty)
        derived.whole = self.whole
        return derived

    @property
    def whole(self) -> Records:
        """The records of the whole input this selection was made from (itself for a table read whole)."""
        return self.__dict__.get("_whole", self)

    @whole.setter
    def whole(self, records: Records) -> None:
        self._whole = records

    def sharing(self, name: str) -> dict[str, list[Record]]:
        """These records by their value of the field ``name`` as ``where`` compares it (:func:`compared`),
        built once per field: the index :meth:`Record.linked` reads."""
        cache = self.__dict__.setdefault("_sharing", {})
        if name not in cache:
            index: dict[str, list[Record]] = {}
            for r in self.items:
                if (value := dict.get(r, name)) is not None:
                    index.setdefault(compared(value), []).append(r)
            cache[name] = index
        return cache[name]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def __getitem__(self, index):
        return self._derived(self.items[index]) if isinstance(index, slice) else self.items[index]

    def __call__(self, text=None) -> Records:
        """A Records called like ``records(text)``: the text read as records (these records when ``text``
        is None). A small model names its variable ``records = records(context)``, and its next block's
        ``records(context)`` would otherwise fail."""
        if text is None:
            return self
        read = Records.reader(text)
        read.on_empty = self.on_empty
        return read

    def __bool__(self) -> bool:
        return bool(self.items)

    def __repr__(self) -> str:
        kinds = ", ".join(f"{fmt} {n:,}" for fmt, n in self.formats.most_common())
        return (f"<{len(self.items):,} records ({kinds or 'none read'}); {len(self.unparsed):,} unparsed lines; "
                "print(recs.fields()) lists the fields>")

    def where(self, *tests: Callable[[Record], bool], **constraints) -> Records:
        """The records meeting every test (a function of the record) and every ``field=value``
        (a value, or a predicate of the value: ``startswith("auth-")``, ``above(100)``, a lambda)."""
        kept = [r for r in self.items if all(same(r.get(name), wanted) for name, wanted in constraints.items())
                and all(same(r, test) for test in tests)]
        quiet = kept or self.on_empty is None
        unknown = [] if quiet else [name for name in constraints if not any(r.field(name) for r in self.items)]
        if unknown and self.items:
            self.on_empty(f"where({', '.join(unknown)}=...) -> 0 records: no record has a field {unknown[0]}; the "
                          f"fields are {', '.join(list(self.fields())[:12])}: print(recs.fields()) shows examples")
        elif not kept and len(constraints) + len(tests) >= 2 and self.on_empty is not None:
            alone = [(_describe(c), sum(1 for r in self.items if same(r.get(c[0]), c[1]))) for c in constraints.items()]
            alone += [(getattr(t, "__name__", "test"), sum(1 for r in self.items if same(r, t))) for t in tests]
            if all(n for _, n in alone):
                self.on_empty(f"where({', '.join(d for d, _ in alone)}) -> 0 records, but each constraint alone "
                              f"matches some: {'; '.join(f'{d}: {n:,}' for d, n in alone)}. Print a few records "
                              "of each (recs.where(...).top(3)) and check the values you wrote")
        return self._derived(kept)

    def count(self) -> int:
        """How many records."""
        return len(self.items)

    def values(self, field: str) -> list:
        """The field's value of every record that has it, in order."""
        return [r[field] for r in self.items if r.get(field) is not None]

    def sum(self, field: str) -> int | float:
        """The sum of the field's numeric values (numbers written as text count; others are skipped)."""
        total = 0
        for value in self.values(field):
            if isinstance(value, str):
                try:
                    value = float(value.replace(",", ""))
                except ValueError:
                    continue
            if isinstance(value, int | float) and not isinstance(value, bool):
                total += value
        return round(total, 6) if isinstance(total, float) else total

    def group_count(self, key: str | Callable[[Record], object]) -> Counter:
        """How many records per value of the field ``key`` (or of ``key(record)``); records without it
        are left out. A :class:`collections.Counter`: ``.most_common(1)`` is the largest group."""
        groups: Counter = Counter()
        for r in self.items:
            try:
                value = key(r) if callable(key) else r.get(key)
            except Exception:  # noqa: BLE001 - a record the function cannot read is in no group
                continue
            if value is not None:
                groups[value] += 1
        return groups

    def top(self, n: int = 5, by: str | None = None) -> Records:
        """The first ``n`` records, or the ``n`` with the largest numeric ``by`` field."""
        if by is None:
            return self._derived(self.items[:n])
        ranked = [r for r in self.items if isinstance(r.get(by), int | float)]
        return self._derived(sorted(ranked, key=lambda r: r[by], reverse=True)[:n])

    def first(self) -> Record | None:
        """The first record, or None. A field it lacks reads from the first later record of this selection
        that has it: ``recs.where(account="A-1").first()["city"]`` is the city of A-1's record that names
        one, not None because A-1's first record is a payment (the 1.5B model writes that chain for a join);
        else from a record of the whole input it links to by a shared field's value (:meth:`Record.linked`)."""
        if not self.items:
            return None
        head = self.items[0]
        record = Record(head, head.raw, head.line)
        record.__dict__.update(vars(head))
        record.later, record.table = self.items[1:], self.whole
        return record

    def join(self, left_field: str, right_field: str | None = None) -> Records:
        """Each record with ``left_field`` merged with each other record whose ``right_field`` (default:
        the same name) holds that value, ignoring case; the left record's fields win a clash. With one
        field name for both sides, records pair once (the earlier one on the left) and only when each
        has a field the other lacks (an order's line and its shipment's, not two payments)."""
        right_field = right_field or left_field
        index: dict[str, list[tuple[int, Record]]] = {}
        for at, r in enumerate(self.items):
            if r.get(right_field) is not None:
                index.setdefault(compared(r[right_field]), []).append((at, r))
        merged = []
        for at, left in enumerate(self.items):
            if left.get(left_field) is None:
                continue
            for other, right in index.get(compared(left[left_field]), ()):
                if other == at or (left_field == right_field and (
                        other < at or left.keys() <= right.keys() or right.keys() <= left.keys())):
                    continue
                merged.append(Record({**right, **left}, f"{left.raw}\n{right.raw}", left.line))
        return self._derived(merged)

    def fields(self) -> FieldSummary:
        """Each field name with how many records have it and up to 3 example values, most common first."""
        counts: Counter = Counter()
        examples: dict[str, list] = {}
        for r in self.items:
            for name, value in r.items():
                counts[name] += 1
                seen = examples.setdefault(name, [])
                if len(seen) < EXAMPLES and value not in seen:
                    seen.append(value)
        return FieldSummary({name: (n, examples[name]) for name, n in counts.most_common()})


class FieldSummary(dict):
    """field name -> (records having it, example values); printed one field a line."""

    def __repr__(self) -> str:
        return "\n".join(f"{name}: {n:,} records, e.g. {', '.join(repr(_shown(v)) for v in ex)}"
                         for name, (n, ex) in self.items())
