"""A patch's footprint: the one check that refuses a change the tests alone would accept.

A suite can be made to pass by editing it, or by deleting the code its failing tests
reach. Such a change is not a fix, whatever the tests say. Every candidate of the patch
pipeline (:func:`codur.validate.evaluate.evaluate`, before its tests run) and the agent's
change at verification (:mod:`codur.graph.execution.verification_agent`) go through :func:`refusal`. A change is
refused when it

- **edits a test**: changes, adds or deletes a Python test file (:func:`codur.testing.ids.is_test_file`:
  ``test_*.py``, ``*_test.py``, ``conftest.py``, any ``.py`` under a ``tests/`` folder). A new
  test module counts: pytest imports every module it collects, and one that patches the code
  under test at import changes what the other tests see. Unless the caller allows it
  (``tests=True``: the task asks for tests, see :func:`asks_for_tests`; ``new_tests=True``: new
  test files only, a feature task's own tests);
- **empties a body**: a function or class whose body held code becomes empty, i.e. only a
  docstring, ``pass``, ``...``, ``return`` / ``return None`` or ``raise NotImplementedError``;
- **guts a function**: a function of at least :data:`MIN_STATEMENTS` statements keeps fewer
  than half of them (nested statements count; the docstring does not), or disappears;
- **deletes more than** :data:`MAX_NET_DELETED` **lines** of code (net: lines removed less
  lines added, over every file; blank and comment-only lines do not count).

Only Python files are judged; test files are judged by the first rule alone. A file that does
not parse is judged by its lines only (its tests fail it anyway).

The bounds: a mutant changes one line; a model sample rewrites one function (two for a pair).
The reference fixes of ``bench/agent`` (38 tasks with a solution) and ``bench/repair`` (41
bugs) delete nothing net and empty nothing (``tests/repair/test_footprint.py`` checks every
one); the one refused is b_11's, whose bug is a wrong fixture in ``conftest.py`` under the task
"The tests fail; find out why and fix it." (a task naming the file may change it). Of the 7,097
mutants the mutation engine makes of ``bench/repair``'s files (every line scored), 2 are
refused: a statement deleted from a body of one, leaving ``pass``. A net deletion past 20
lines is the removal of a feature; keeping fewer than half of a function of five or more
statements is a rewrite the failing tests alone cannot justify. Below five statements a
legitimate fix may well drop two of three (a wrong guard and its ``raise``), so small
functions are judged by the emptied-body rule only.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from functools import lru_cache

from codur.core.pyast import parse_ast
from codur.testing.ids import is_test_file

#: A change that removes more lines of code than it adds, by more than this, is refused.
MAX_NET_DELETED = 20
#: A function of at least this many statements that keeps fewer than half is refused.
MIN_STATEMENTS = 5

_SENTENCE = re.compile(r"[;!?\n]|\.(?:\s|$)")
_PASS = re.compile(r"\b(?:pass|passes|passing|green)\b", re.IGNORECASE)
_EDIT = r"\b(?:add|write|create|update|change|edit|modify|rewrite|extend|adjust)\b"
_FIX = r"\b(?:fix|correct|repair)\b"
_TEST_PATH = r"[\w./-]*(?:\btest_\w*|_test|conftest|\btests/[\w./-]*)\.py\b"
_NEAR = r"(?:\W+[\w./()-]+){0,8}?\W+"
_ASKED = re.compile(rf"{_EDIT}{_NEAR}(?:tests?\b|{_TEST_PATH})|{_FIX}{_NEAR}{_TEST_PATH}", re.IGNORECASE)


def asks_for_tests(task: str) -> bool:
    """Does ``task`` ask to change tests? A sentence of it (split at ``;``, ``!``, ``?``, a line
    end or a full stop) with no "pass"/"passing"/"green" in it asks to add, write, create,
    update, change, edit, modify, rewrite, extend or adjust tests or a test file within a few
    words ("add a test for X", "write unit tests for parse()", "update the tests to the new
    API"), or to fix, correct or repair a named test file ("fix the test in tests/test_x.py").
    "Fix the failing tests", "make the tests pass" and "fix a.py so the tests in test_a.py
    pass" ask for the code to be fixed: no."""
    return any(not _PASS.search(s) and _ASKED.search(s) for s in _SENTENCE.split(task))


def refusal(originals: Mapping[str, str | None], new: Mapping[str, str | None], *,
            tests: bool = False, new_tests: bool = False) -> str | None:
    """Why the change from ``originals`` to ``new`` is refused (see the module doc), or None.

    Args:
        originals: repo-relative posix path -> the file's text before the change (None, or
            missing: the file did not exist).
        new: path -> its text after the change (None: deleted), for the files the change
            touches; a file it does not name is unchanged.
        tests: test files may change (the task asks for tests).
        new_tests: test files may be added, not changed (a feature task's own tests).

    Returns:
        one short reason naming what was refused: ``edited tests/test_x.py``,
        ``added tests/test_new.py``, ``deleted conftest.py``, ``emptied parse()``, ``emptied class
        Parser``, ``gutted Parser.parse(): kept 2 of 9 statements``, ``removed parse()``,
        ``deleted 34 lines (billing.py)``; the first found, in that order of rules.
    """
    paths = sorted(p for p in new if p.endswith(".py") and originals.get(p) != new[p])
    if not tests:
        for path in paths:
            old, now = originals.get(path), new.get(path)
            if is_test_file(path) and not (new_tests and old is None):
                verb = "added" if old is None else "deleted" if now is None else "edited"
                return f"{verb} {path}"
    code = [p for p in paths if not is_test_file(p)]
    for path in code:
        if why := _bodies(originals.get(path) or "", new.get(path) or ""):
            return why
    removed = {p: _code_lines(originals.get(p) or "") - _code_lines(new.get(p) or "") for p in code}
    if sum(removed.values()) > MAX_NET_DELETED:
        where = ", ".join(p for p, n in removed.items() if n > 0)
        return f"deleted {sum(removed.values())} lines ({where})"
    return None


def advice(why: str) -> str:
    """What the model is told after its change was refused for ``why`` (a :func:`refusal` reason,
    or a refused anti-pattern's, :func:`codur.validate.antipatterns.refusal`)."""
    if why.startswith("leaves code unreachable"):
        return "no return, raise, continue or break before code that must still run: change the condition or the value"
    if why.startswith("duplicates the block"):
        return "change the block itself instead of adding a second copy of it"
    if why.startswith("adds an unconditional exit"):
        return "put the early return or raise under the condition that calls for it, or change what is wrong instead"
    verb, _, rest = why.partition(" ")
    if verb == "added":
        return f"delete {rest}: this task fixes the code, and a new test module is no part of that"
    if verb == "edited" or (verb == "deleted" and not rest.split(" ")[0].isdigit()):
        return f"put {rest} back as it was: this task fixes the code, and the tests say what the code must do"
    return "keep the code and change only what is wrong: the smallest edit that makes the failing tests pass"


def refused_line(reasons: list[str]) -> str:
    """The summary's line for refused changes ("" for none): ``refused 2 candidates: 1 edited
    tests/test_x.py, 1 emptied parse()``; the same reason is counted once with its number."""
    if not reasons:
        return ""
    counts: dict[str, int] = {}
    for why in reasons:
        counts[why] = counts.get(why, 0) + 1
    noun = "candidate" if len(reasons) == 1 else "candidates"
    return f"refused {len(reasons)} {noun}: " + ", ".join(f"{n} {why}" for why, n in counts.items())


# -- the rules ---------------------------------------------------------------------------


def _code_lines(text: str) -> int:
    """Lines of ``text`` that hold code: not blank, not only a comment."""
    return sum(1 for line in text.splitlines() if (s := line.strip()) and not s.startswith("#"))


@lru_cache(maxsize=64)
def _defs(text: str) -> dict[str, list[tuple[bool, bool, int]]] | None:
    """Every function and class of ``text`` by qualified name (``Parser.parse``,
    ``outer.inner``): (is a class, its body is empty, its statements), in source order;
    None when ``text`` does not parse. Cached: a file's mutants share its original."""
    try:
        tree = parse_ast(text)
    except (SyntaxError, ValueError):
        return None
    out: dict[str, list[tuple[bool, bool, int]]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                body = _without_docstring(child.body)
                count = sum(isinstance(n, ast.stmt) for stmt in body for n in ast.walk(stmt))
                out.setdefault(name, []).append((isinstance(child, ast.ClassDef), _empty(body), count))
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    docstring = (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                 and isinstance(first.value.value, str))
    return body[1:] if docstring else body


def _empty(body: list[ast.stmt]) -> bool:
    """A body (docstring dropped) that does nothing: nothing, ``pass``, ``...``, ``return``,
    ``return None``, ``raise NotImplementedError``."""
    return all(_stub(s) for s in body)


def _stub(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and stmt.value.value is Ellipsis:
        return True
    if isinstance(stmt, ast.Return):
        return stmt.value is None or (isinstance(stmt.value, ast.Constant) and stmt.value.value is None)
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    return False


def _bodies(old_text: str, new_text: str) -> str | None:
    """The first function or class ``new_text`` empties or guts (see the module doc)."""
    old, new = _defs(old_text), _defs(new_text)
    if not old or new is None:
        return None
    for name, defs in old.items():
        now = new.get(name, [])
        for i, (is_class, was_empty, count) in enumerate(defs):
            label = f"class {name}" if is_class else f"{name}()"
            if i >= len(now):
                if not is_class and count >= MIN_STATEMENTS:
                    return f"removed {label}"
                continue
            _, empty, kept = now[i]
            if empty and not was_empty:
                return f"emptied {label}"
            if not is_class and count >= MIN_STATEMENTS and 2 * kept < count:
                return f"gutted {label}: kept {kept} of {count} statements"
    return None
