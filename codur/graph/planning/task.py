"""The task, read once: one typed classification that routing, scope and verification read.

:func:`read_task` turns the user's words into a :class:`TaskReading`: the kinds of wording
it has (:data:`KINDS`, the one word table), whether it is a *plain fix* ("make the failing
tests pass", "fix the failing test", "fix the bug", "... so the tests in test_x.py pass"),
whether it reports a bug, and what it names (functions, flags, files, tests).
:func:`relate` then says which failing tests are *about the task*:

1. the tests the task names (an id, a test's name, its file);
2. every failing test, for a plain fix;
3. the tests in test files added or changed in the working tree (the user's, or the run's);
4. tests that use a name the task asks for that does not exist yet (a test of the feature);
5. for a bug report ("X crashes", "fix limiter.py"), tests whose file uses a name or imports
   a module the task names.

A word the task and a test's name share is no evidence (``test_area_of_rectangle`` is not
"make area() raise ValueError when a side is negative"): such a test is in doubt, decided by
the planner model, and unrelated without one. A task that calls code intended ("the +1 offset
is intended") or asks to change tests (:attr:`TaskReading.keeps_code`) never gets code changed
by a code-only fixer (:func:`codur.graph.routing.patch_eligible`).

Any other failing test is *unrelated*: no fixer is run for it and it is never the proof that
the task is done. When nothing above links a failing test to the task but the task is no
feature either (a change request such as "make passed() raise ValueError for negative
scores", where the failing test uses ``passed``), the rules cannot tell: the planner model
decides (:mod:`codur.graph.planning.scope`), and without a model the test is unrelated.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from codur.testing.ids import file_of
from codur.tools.registry import TaskType
from codur.validate import footprint
from codur.validate.selection import bare_test_names

#: The kinds of wording, in order of precedence (the one word table: no other module keeps one).
KINDS: dict[TaskType, str] = {
    TaskType.CODE_FIX: r"\b(fix\w*|bugs?|fail\w*|broken|errors?|crash\w*|wrong|incorrect\w*|hang\w*|freez\w*)\b",
    TaskType.CODE_GENERATION: r"\b(add|implement|create|write|support|new)\b",
    TaskType.REFACTOR: r"\b(refactor|rename|extract|simplify|clean ?up|restructure)\b",
    TaskType.DOCUMENTATION: r"\b(docs?|docstrings?|readme|comment\w*|document)\b",
    TaskType.EXPLANATION: r"(^(where|what|how|why|which|explain)\b|\?\s*$)",
    TaskType.CODE_ANALYSIS: r"^(analy[sz]e|review|audit|inspect|assess)\b",  # a question about the code
}
#: A greeting on its own ("Hello", "hi there!") is a conversation: answered, read-only, like a question.
GREETING = r"^\s*(hello|hi|hey|good (morning|afternoon|evening))\b[\s\w,!.]{0,20}$"
_TESTS = r"(?:all\s+)?(?:the\s+|these\s+|this\s+|my\s+)?(?:failing\s+|broken\s+|red\s+)?(?:unit\s+)?tests?"
_WHERE = r"(?:\s+in\s+[\w./:-]+)?"
#: "Fix the failing tests" in its wordings: the failing tests are the task. "make passed() raise
#: ..." is none of them (a test word must follow "make").
PLAIN_FIX = re.compile("|".join([
    rf"\b(?:make|get)\s+{_TESTS}{_WHERE}\s+(?:pass|green|succeed)",
    r"\bmake\s+(?:the\s+)?[\w./:\[\]-]*test\w*[\w./:\[\]-]*(?:\s+and\s+[\w./:\[\]-]+)?\s+pass\b",  # make test_x pass
    rf"\bso\s+(?:that\s+)?{_TESTS}{_WHERE}\s+(?:pass|succeed)",
    rf"\b(?:fix|repair|resolve)\s+{_TESTS}\b",
    r"\b(?:fix|repair|resolve)\s+(?:the\s+|this\s+|these\s+)?(?:bugs?|test\s+failures?|failures?)\s*[.!]?\s*$",
    r"\btests?\s+(?:are\s+|is\s+)?(?:fail\w*|broken|red)\b.{0,60}\bfix\b",
]), re.IGNORECASE)
#: A task that says what *should* happen reports a bug ("is_adult(18) should be True"), though no
#: CODE_FIX word says so: its failing tests that use what it names are the task's.
_EXPECTS = re.compile(r"\b(?:should|must|expected to|supposed to|ought to)\b", re.IGNORECASE)
_CALLED = re.compile(r"`?(?<![.\w])([A-Za-z_]\w*)\(")  # not an attribute call: functools.lru_cache( is a library's
_DEFINED = re.compile(r"\b(?:function|method|def|class|called|named)\s+(?:(?:called|named)\s+)?`?([A-Za-z_]\w*)`?")
_FLAG = re.compile(r"(?<![\w-])(--[a-z][\w-]*)")
_FILE = re.compile(r"(?<![\w./-])([\w./-]+\.(?:py|toml|cfg|ini|json|ya?ml|md|txt|rst))\b")
_TEST_ID = re.compile(r"(?<![\w./-])([\w./-]*test\w*\.py(?:::[\w\[\]:.-]+)?)")
#: Words that follow "function", "called" and the like in plain English, not names.
_WORDS = frozenset({"a", "an", "the", "that", "which", "to", "for", "in", "of", "with", "and", "or", "is", "it",
                    "its", "this", "called", "named"})
#: The task says the code is as meant ("the +1 offset is intended", "this rounding is deliberate").
_INTENDED = re.compile(r"\b(?:is|are|was|were)\s+(?:intended|intentional|deliberate|on purpose|by design|correct)\b",
                       re.IGNORECASE)


@dataclass(frozen=True)
class Requested:
    """What a task names: ``names`` (functions, methods, classes), ``flags``, ``files`` (repo-relative)."""

    names: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    files: tuple[str, ...] = ()


def requested(task: str) -> Requested:
    """The names, flags and files ``task`` asks for; builtins (``print(``), attribute calls
    (``text.split(``, ``functools.lru_cache(``), keywords and plain words are not names."""
    found = [m for m in _CALLED.findall(task) + _DEFINED.findall(task)
             if m.lower() not in _WORDS and not keyword.iskeyword(m) and not hasattr(builtins, m)]
    return Requested(names=tuple(dict.fromkeys(found)), flags=tuple(dict.fromkeys(_FLAG.findall(task))),
                     files=tuple(dict.fromkeys(f.removeprefix("./") for f in _FILE.findall(task))))


@dataclass(frozen=True)
class TaskReading:
    """One task, classified (:func:`read_task`).

    Attributes:
        text: the task as given.
        kinds: the kinds of wording it has (:data:`KINDS` order); greeting: it is one.
        plain_fix: it says "make the (failing) tests pass" / "fix the failing test(s)" / "fix the bug".
        bug_report: it reports a bug or asks for a fix (a CODE_FIX word, or what "should" happen).
        asked: the functions, flags and files it names (:func:`requested`).
        tests: the test ids, test files and bare test names it names, as written.
        asks_for_tests: it asks to change tests (:func:`codur.validate.footprint.asks_for_tests`).
        intended: it says some code is intended ("the +1 offset is intended").
    """

    text: str
    kinds: tuple[TaskType, ...] = ()
    greeting: bool = False
    plain_fix: bool = False
    bug_report: bool = False
    asked: Requested = Requested()
    tests: tuple[str, ...] = ()
    asks_for_tests: bool = False
    intended: bool = False

    @property
    def keeps_code(self) -> bool:
        """The task calls code intended or asks to change tests: the code is not what is wrong."""
        return self.intended or self.asks_for_tests

    @property
    def question(self) -> bool:
        """A question or greeting, and nothing else: answered, never a change."""
        asks = {TaskType.EXPLANATION, TaskType.CODE_ANALYSIS}
        return self.greeting or (len(self.kinds) == 1 and self.kinds[0] in asks)

    def kind(self, failing_tests: bool) -> TaskType | None:
        """The TaskType when the wording is unambiguous, else None (the planner's to decide):
        a greeting or a lone question; a plain fix with failing tests; a bug report with failing
        tests; else the one kind of wording it has."""
        if self.greeting:
            return TaskType.EXPLANATION
        for ask in (TaskType.EXPLANATION, TaskType.CODE_ANALYSIS):
            if ask in self.kinds:
                return ask if len(self.kinds) == 1 else None
        plain = self.plain_fix and TaskType.CODE_GENERATION not in self.kinds  # "implement X so ...": a feature
        if failing_tests and (plain or TaskType.CODE_FIX in self.kinds):
            return TaskType.CODE_FIX
        return self.kinds[0] if len(self.kinds) == 1 else None


def read_task(task: str) -> TaskReading:
    """Classify ``task`` (see the module docstring); pure: the same words, the same reading."""
    text = task.lower()
    kinds = tuple(t for t, pattern in KINDS.items() if re.search(pattern, text))
    plain = bool(PLAIN_FIX.search(task))
    tests = [t.rstrip(".") for t in _TEST_ID.findall(task)] + bare_test_names(task)
    return TaskReading(text=task, kinds=kinds, greeting=bool(re.match(GREETING, text)), plain_fix=plain,
                       bug_report=plain or TaskType.CODE_FIX in kinds or bool(_EXPECTS.search(task)),
                       asked=requested(task),
                       tests=tuple(dict.fromkeys(tests)), asks_for_tests=footprint.asks_for_tests(task),
                       intended=bool(_INTENDED.search(task)))


@dataclass(frozen=True)
class Relation:
    """Which failing tests are about the task (:func:`relate`).

    Attributes:
        related: the failing test ids about the task; unrelated: the others.
        decided: the rules decided; False: a model may (``undecided`` names the tests in doubt,
            counted as unrelated until it does).
        why: one line, for the trace.
    """

    related: tuple[str, ...] = ()
    unrelated: tuple[str, ...] = ()
    decided: bool = True
    undecided: tuple[str, ...] = ()
    why: str = ""


def named_by(reading: TaskReading, test_id: str) -> bool:
    """Whether the task names ``test_id``: its id, its file (full or base name) or its name."""
    path = file_of(test_id)
    name = test_id.split("::")[-1].split("[")[0]
    forms = {test_id, path, path.rsplit("/", 1)[-1], name}
    return any(t in forms or file_of(t) in (path, path.rsplit("/", 1)[-1]) and "::" not in t for t in reading.tests)


def relate(reading: TaskReading, failing: Iterable[str], *, test_text: Callable[[str], str],
           changed_tests: Iterable[str] = (), defined: Callable[[str], bool] = lambda _name: True) -> Relation:
    """Which of ``failing`` (test ids) are about the task (the module docstring's rules).

    Args:
        reading: the task's reading.
        failing: the failing test ids.
        test_text: a test file's text by repo-relative path ('' when unreadable).
        changed_tests: test files added or changed in the working tree (or written by the run).
        defined: whether a name is already defined in the repo's source (a new name's tests
            are the feature's).
    """
    failing = list(dict.fromkeys(failing))
    if not failing:
        return Relation(why="no failing test")
    named = [t for t in failing if named_by(reading, t)]
    if named:
        return _split(failing, named, "the task names them")
    if reading.tests:  # it names tests, and none of them fails: the others are not the task's
        return _split(failing, [], f"the task names {', '.join(reading.tests[:3])}, which do not fail")
    if reading.plain_fix:
        return _split(failing, failing, "the task asks for the failing tests to pass")
    changed = set(changed_tests)
    related = [t for t in failing if file_of(t) in changed]
    texts = {f: _words(test_text(f)) for f in dict.fromkeys(file_of(t) for t in failing)}
    new = {n for n in reading.asked.names if not defined(n)}
    related += [t for t in failing if t not in related and texts[file_of(t)] & new]
    feature = reading.kinds[:1] == (TaskType.CODE_GENERATION,) and not reading.bug_report
    if reading.bug_report:
        related += [t for t in failing if t not in related and _linked(reading, t, texts[file_of(t)])]
    if related:
        return _split(failing, related, "changed, or testing what the task names")
    if feature and not any(texts[file_of(t)] & set(reading.asked.names) for t in failing):
        return _split(failing, [], "a feature task, and no failing test uses what it names")
    if reading.question:
        return _split(failing, [], "a question")
    linked = [t for t in failing if _linked(reading, t, texts[file_of(t)])]
    return Relation(unrelated=tuple(failing), decided=False, undecided=tuple(linked or failing),
                    why="the rules cannot tell whether the failing tests are the task's")


def _split(failing: list[str], related: list[str], why: str) -> Relation:
    keep = set(related)
    return Relation(related=tuple(t for t in failing if t in keep),
                    unrelated=tuple(t for t in failing if t not in keep), why=why)


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text))


def _linked(reading: TaskReading, test_id: str, words: set[str]) -> bool:
    """Whether the test's file uses a name the task names or imports a module it names."""
    if words & set(reading.asked.names):
        return True
    modules = {f.removesuffix(".py").replace("/", ".") for f in reading.asked.files if f.endswith(".py")}
    return bool(words & {m.rsplit(".", 1)[-1] for m in modules})


__all__ = ["KINDS", "PLAIN_FIX", "Relation", "Requested", "TaskReading", "read_task", "relate",
           "requested"]
