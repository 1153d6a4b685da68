"""Anti-patterns of a change: edits that make tests pass without fixing anything, judged on
the AST of the functions the change touches (before against after).

A test suite under-specifies behaviour, and the cheapest edit that turns it green is often a
deletion or a shortcut: most "plausible" patches of early repair tools deleted functionality
(Qi, Long, Achour, Rinard, ISSTA 2015, "An analysis of patch plausibility and correctness for
generate-and-validate patch generation systems"); Tan, Yoshida, Prasad, Roychoudhury (FSE 2016,
"Anti-patterns in search-based program repair") named generic forbidden transformations and
found that enforcing them gave patches that deleted less and sat at the right lines more often.

Two verdicts (:attr:`Finding.refused`):

- **refused** (never written, whatever the tests say): code left unreachable by the change, a
  block duplicated from the same function, an unconditional ``return`` / ``raise`` added first
  in a function or loop body;
- **held back** (applied only when no other plausible candidate is found, and then reported:
  the run ends ``success`` / ``plausible``, not ``verified``): a deleted guard, a deleted
  ``raise``, a deleted call statement of a function with side effects, a guard's condition
  weakened from its own parts, a negated condition, a condition replaced by a constant.

Test files and files that do not parse are not judged (their tests judge them). The public
API: :func:`judge` (one file's old and new text), :func:`judge_files` (a change of several
files), :func:`refusal`, :func:`held_back`, :func:`plausible_line`.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum

from codur.testing.ids import is_test_file
from codur.validate.shapes import (
    Unit,
    blocks,
    callee,
    changed_span,
    conditions,
    constant,
    dead,
    exits,
    guards,
    inverse,
    loop_key,
    nested,
    paired,
    pure_call,
    short,
    similar,
    take,
    units,
    weaker,
)


class Kind(StrEnum):
    """What a :class:`Finding` found; the first three are refused, the rest held back."""

    EARLY_EXIT = "early_exit"
    UNREACHABLE = "unreachable"
    DUPLICATE = "duplicate_block"
    GUARD = "deleted_guard"
    RAISE = "deleted_raise"
    CALL = "deleted_call"
    WEAKENED = "weakened_guard"
    NEGATED = "negated_condition"
    CONSTANT = "constant_condition"


#: The kinds no tests can make acceptable.
REFUSED = frozenset({Kind.EARLY_EXIT, Kind.UNREACHABLE, Kind.DUPLICATE})
_ORDER = {kind: i for i, kind in enumerate(Kind)}
_REVIEW = {Kind.GUARD: "review whether bad input still needs rejecting",
           Kind.RAISE: "review whether the error still needs raising",
           Kind.CALL: "review whether its effect is still needed",
           Kind.WEAKENED: "review whether what it let through still needs rejecting",
           Kind.NEGATED: "review whether the cases it used to select still behave",
           Kind.CONSTANT: "review whether the other branch is still needed"}


@dataclass(frozen=True)
class Finding:
    """One anti-pattern of a change.

    Attributes:
        kind: the rule (:class:`Kind`).
        path: the file (repo-relative posix path; "" when judged without one).
        line: 1-based line: in the new text for what the change added (unreachable code, a
            duplicate, an early exit, a weakened guard, a negated or constant condition), in the old text for
            what it deleted (a guard, a raise, a call).
        text: the code concerned, one line, shortened (``if not isinstance(base, str) or ...:
            return None``).
        detail: the duplicated block's line (duplicate), the constant (constant condition), the
            new condition (weakened guard), else "".
    """

    kind: Kind
    path: str
    line: int
    text: str
    detail: str = ""

    @property
    def refused(self) -> bool:
        """Refused (never written), else held back."""
        return self.kind in REFUSED

    def where(self, line: int | str | None = None) -> str:
        line = self.line if line is None else line
        return f"{self.path}:{line}" if self.path else f"line {line}"

    def describe(self) -> str:
        """The finding in words, e.g. ``deletes the guard at utils.py:6 (if not isinstance(base,
        str) or ...: return None); review whether bad input still needs rejecting``."""
        what = {Kind.EARLY_EXIT: f"adds an unconditional exit first in its body at {self.where()} ({self.text})",
                Kind.UNREACHABLE: f"leaves code unreachable at {self.where()} ({self.text})",
                Kind.DUPLICATE: f"duplicates the block at {self.where(self.detail)} ({self.text}) at {self.where()}",
                Kind.GUARD: f"deletes the guard at {self.where()} ({self.text})",
                Kind.RAISE: f"deletes the raise at {self.where()} ({self.text})",
                Kind.CALL: f"deletes the call at {self.where()} ({self.text})",
                Kind.WEAKENED: f"weakens the guard at {self.where()} ({self.text}) to ({self.detail})",
                Kind.NEGATED: f"negates the condition at {self.where()} ({self.text})",
                Kind.CONSTANT: f"replaces the condition at {self.where()} ({self.text}) by {self.detail}"}[self.kind]
        return f"{what}; {_REVIEW[self.kind]}" if self.kind in _REVIEW else what

    def as_dict(self) -> dict:
        """JSON form: kind, path, line, text, refused, description."""
        return {"kind": self.kind.value, "path": self.path, "line": self.line, "text": self.text,
                "refused": self.refused, "description": self.describe()}


def judge(old: str, new: str, path: str = "") -> list[Finding]:
    """The anti-patterns of the change of one Python file from ``old`` to ``new`` (texts; ""
    for a new file), refused ones first, then by rule and line. Only the functions and methods
    whose text the change touches are judged, each against the one of the same qualified name
    in ``old`` (a new function against nothing). [] when either text does not parse."""
    if old == new:
        return []
    before, after = units(old), units(new)
    if before is None or after is None:
        return []
    first, last = changed_span(old, new)
    found: list[Finding] = []
    for name, unit in after.items():
        if unit.node.end_lineno < first or unit.node.lineno > last:
            continue
        was = before.get(name)
        if was is not None and was.dump == unit.dump:
            continue
        found += _rules(was, unit, old, new, path)
    return sorted(found, key=lambda f: (not f.refused, _ORDER[f.kind], f.line))


def judge_files(originals: Mapping[str, str | None], new: Mapping[str, str | None]) -> list[Finding]:
    """:func:`judge` over a change of several files: ``originals`` maps a repo-relative posix
    path to its text before (None or missing: a new file), ``new`` to its text after (None:
    deleted) for the files the change touches. Python code files only: test files
    (:func:`codur.testing.ids.is_test_file`) and deleted files are not judged here."""
    found: list[Finding] = []
    for path in sorted(new):
        now = new[path]
        if now is None or not path.endswith(".py") or is_test_file(path):
            continue
        found += judge(originals.get(path) or "", now, path)
    return sorted(found, key=lambda f: (not f.refused, _ORDER[f.kind], path, f.line))


def refusal(findings: list[Finding]) -> str | None:
    """Why a change with ``findings`` is refused: the first refused finding's
    :meth:`Finding.describe`, or None."""
    return next((f.describe() for f in findings if f.refused), None)


def held_back(findings: list[Finding]) -> list[Finding]:
    """The findings that hold a change back (not refused)."""
    return [f for f in findings if not f.refused]


def plausible_line(findings: list[Finding]) -> str:
    """The summary's line of a change held back ("" for none): ``plausible: deletes the guard
    at utils.py:6 (...); review whether bad input still needs rejecting``, several joined by
    ``; also ``."""
    held = held_back(findings)
    return "plausible: " + "; also ".join(f.describe() for f in held) if held else ""


# -- the rules -------------------------------------------------------------------------------------


def _rules(was: Unit | None, unit: Unit, old: str, new: str, path: str) -> Iterator[Finding]:
    """Every rule on one function changed from ``was`` (None: new) to ``unit``."""
    early = list(_early_exit(was, unit, new, path))
    yield from early
    if not early:
        yield from _unreachable(was, unit, new, path)
    yield from _duplicate(was, unit, new, path)
    if was is None:
        return
    gone = yield from _deleted_guards(was, unit, old, path)
    yield from _deleted_raise(was, unit, old, path, gone)
    yield from _deleted_call(was, unit, old, path, gone)
    yield from _conditions(was, unit, old, new, path)


def _early_exit(was: Unit | None, unit: Unit, new: str, path: str) -> Iterator[Finding]:
    """A ``return`` / ``raise`` first in a function's body with more after it, or first in a
    loop's body, where the same body before began otherwise (Tan et al. 2016, the anti-pattern
    of appending an early exit). A loop is matched by its header (target and iterable, or test)."""
    body, before = unit.body, was.body if was is not None else []
    if len(body) > 1 and exits(body[0], returns_only=True) and before and not exits(before[0], returns_only=True):
        yield Finding(Kind.EARLY_EXIT, path, body[0].lineno, short(new, body[0]))
    if was is None:
        return
    loops = {loop_key(n): n for n in was.nodes if isinstance(n, ast.For | ast.AsyncFor | ast.While)}
    for node in unit.nodes:
        if isinstance(node, ast.For | ast.AsyncFor | ast.While) and exits(node.body[0], returns_only=True):
            match = loops.get(loop_key(node))
            if match is not None and not exits(match.body[0], returns_only=True):
                yield Finding(Kind.EARLY_EXIT, path, node.body[0].lineno, short(new, node.body[0]))


def _unreachable(was: Unit | None, unit: Unit, new: str, path: str) -> Iterator[Finding]:
    """Statements after a ``return``, ``raise``, ``continue`` or ``break`` of the same block that
    were not unreachable before (Tan et al. 2016: the dead code an early exit leaves). One finding
    per block, at its first unreachable statement."""
    before = Counter(ast.dump(s) for b in (blocks(was) if was else []) for s in dead(b))
    for block in blocks(unit):
        fresh = [s for s in dead(block) if not take(before, ast.dump(s))]
        if fresh:
            yield Finding(Kind.UNREACHABLE, path, fresh[0].lineno, short(new, fresh[0]))


def _duplicate(was: Unit | None, unit: Unit, new: str, path: str) -> Iterator[Finding]:
    """A compound statement (loop, ``if``, ``with``, ``try``) of three statements or more that the
    change added, nearly equal to one it kept in the same function, when the function now holds
    more such look-alikes than before (Tan et al. 2016; a sample that pastes a second copy of a
    loop instead of changing the first)."""
    before = [(n, d) for n, d, k in (was.compound if was is not None else []) if k >= 3]
    old_dumps = {d for _, d in before}
    added = [n for n, d, k in unit.compound if d not in old_dumps and k >= 3]
    if not added:
        return
    kept = [n for n, d, k in unit.compound if d in old_dumps and k >= 3]
    for copy in added:
        for origin in (n for n in kept if not nested(n, copy)):
            if not similar(unit.text(copy), unit.text(origin)):
                continue
            twins_now = sum(similar(unit.text(origin), unit.text(n)) for n in (*added, *kept) if n is not origin)
            dump = ast.dump(origin)
            twins_before = sum(similar(unit.text(origin), was.text(n)) for n, d in before if d != dump)
            if twins_now > twins_before:
                header = short(new, origin).rstrip(":")
                yield Finding(Kind.DUPLICATE, path, copy.lineno, f"{header}: ...", str(origin.lineno))
                return


def _deleted_guards(was: Unit, unit: Unit, old: str, path: str):
    """``if`` statements whose body ends in an exit (guards) that are gone: no ``if`` of the same
    test nor of the same body is left (Tan et al. 2016, deleting a control statement / a CFG exit
    node; Qi et al. 2015, functionality deletion). Returns the ids of the nodes inside them."""
    now = guards(unit, any_if=True)
    tests, bodies = {ast.dump(n.test) for n in now}, {tuple(ast.dump(s) for s in n.body) for n in now}
    gone: set[int] = set()
    for node in guards(was):
        if ast.dump(node.test) in tests or tuple(ast.dump(s) for s in node.body) in bodies:
            continue
        gone |= {id(n) for n in ast.walk(node)}
        text = f"if {short(old, node.test, cut=True)}: {short(old, node.body[-1])}"
        yield Finding(Kind.GUARD, path, node.lineno, text)
    return gone


def _deleted_raise(was: Unit, unit: Unit, old: str, path: str, gone: set[int]) -> Iterator[Finding]:
    """Fewer ``raise`` statements than before, beyond those of deleted guards (Qi et al. 2015:
    the error a caller relies on, deleted)."""
    def raises(u: Unit) -> list[ast.Raise]:
        return [n for n in u.nodes if isinstance(n, ast.Raise)]
    before = [n for n in raises(was) if id(n) not in gone]
    now = raises(unit)
    if len(before) > len(now):
        left = Counter(ast.dump(n) for n in now)
        lost = [n for n in before if not take(left, ast.dump(n))]
        node = lost[0] if lost else before[-1]
        yield Finding(Kind.RAISE, path, node.lineno, short(old, node))


def _deleted_call(was: Unit, unit: Unit, old: str, path: str, gone: set[int]) -> Iterator[Finding]:
    """A call statement deleted (its callee called as a statement fewer times than before, beyond
    those of deleted guards), unless it calls a pure builtin (Qi et al. 2015: a side effect
    deleted). A call whose receiver or arguments changed is kept."""
    def calls(u: Unit) -> list[ast.Expr]:
        return [n for n in u.nodes if isinstance(n, ast.Expr) and pure_call(n.value) is False]
    before = [n for n in calls(was) if id(n) not in gone]
    left = Counter(callee(n) for n in calls(unit))
    lost = [n for n in before if not take(left, callee(n))]
    if lost:
        yield Finding(Kind.CALL, path, lost[0].lineno, short(old, lost[0]))


def _conditions(was: Unit, unit: Unit, old: str, new: str, path: str) -> Iterator[Finding]:
    """Conditions (of ``if``, ``while``, ``assert``, a conditional expression, a comprehension's
    ``if``) paired in order where the change replaced one by another: one negated whole (``not
    c``, or its one comparison inverted, ``>`` for ``<=``), or one replaced by a constant (Tan et
    al. 2016, the anti-pattern of trivial conditions); a guard's condition weakened from its own
    parts (:func:`~codur.validate.shapes.weaker`: ``a or b`` → ``a and b``, an operand of its
    ``or`` dropped): part of the guard deleted, so what it used to reject flows on (Qi et al.
    2015, functionality deletion; Tan et al. 2016, deleting a control statement). A guard made
    narrower by a new condition of its own (``a`` → ``a and key not in self``) is not weakened
    *from its own parts* and is not held back: that is how many real fixes read."""
    guarded = {id(n.test) for n in guards(was)}
    for a, b in paired(conditions(was), conditions(unit)):
        if constant(b) and not constant(a):
            yield Finding(Kind.CONSTANT, path, b.lineno, short(old, a), short(new, b))
        elif inverse(a, b):
            yield Finding(Kind.NEGATED, path, b.lineno, short(old, a))
        elif id(a) in guarded and weaker(a, b):
            yield Finding(Kind.WEAKENED, path, b.lineno, short(old, a), short(new, b))
