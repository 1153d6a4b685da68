"""Choosing among plausible candidates: the search goes on past a held-back one, for a bounded
extra budget, and the best of those found is applied.

A plausible candidate with a held-back anti-pattern (:mod:`codur.validate.antipatterns`: a
deleted guard, ``raise`` or call, a weakened guard, a negated or constant condition) is not applied at once: the
search keeps going for :data:`EXTRA_SHARE` of the time it has left, or until :data:`MORE_HELD`
more such candidates are found, or until a clean plausible candidate comes (which wins at once,
as the first plausible candidate always did). When none does, the best held-back one is applied,
by this order (:func:`rank`):

1. fewest anti-patterns;
2. fewest passing tests whose behaviour the change may alter: the passing tests that ran one of
   the lines it edits, from the localization's per-test coverage (the idea of PATCH-SIM, Xiong,
   Liu, Zeng, Zhang, Huang, ICSE 2018: a correct patch changes the behaviour of the passing tests
   little; PATCH-SIM compares each passing test's execution trace before and after, which would
   cost one more covered run of every passing test per candidate: the baseline's coverage comes
   free);
3. smallest edit, in tokens changed (a proxy for the AST edit, on the changed lines only);
4. the model's likelihood where a model made it (``provenance["logprob"]``, higher first; no
   fixer records one yet);
5. the order the search found them in.

When the first plausible candidate is clean, nothing more is searched: on the one-function
benches the extra search would only cost time (AGENTIC_LOGIC.md, "Several plausible candidates").
"""

from __future__ import annotations

import difflib
import re
import threading
import time
from dataclasses import dataclass, field

from codur.validate.evaluate import Candidate, Evaluation
from codur.validate.failures import relative
from codur.validate.localize import Localization

#: Share of the search's time left that it goes on for once a held-back candidate was found.
EXTRA_SHARE = 0.25
#: Held-back plausible candidates found after the first one, at which the search stops.
MORE_HELD = 3
_TOKEN = re.compile(r"\w+|[^\w\s]")


@dataclass
class Held:
    """The held-back plausible candidates of one search (candidate, evaluation, new texts of
    its files), in the order found, and until when (``time.monotonic()``) the search goes on.

    ``deadline``: the whole search's end (``time.monotonic()``)."""

    deadline: float
    found: list[tuple[Candidate, Evaluation, dict[str, str]]] = field(default_factory=list)
    until: float | None = None

    def add(self, candidate: Candidate, evaluation: Evaluation, news: dict[str, str]) -> None:
        """Keep one; the first sets the extra budget, the :data:`MORE_HELD`-th more ends it."""
        now = time.monotonic()
        self.found.append((candidate, evaluation, news))
        if self.until is None:
            self.until = now + EXTRA_SHARE * max(0.0, self.deadline - now)
        if len(self.found) > MORE_HELD:
            self.until = now

    def over(self) -> bool:
        """The extra budget is spent (False while nothing is held)."""
        return self.until is not None and time.monotonic() > self.until


class Stop:
    """``is_set()`` of the run's cancel event, or of the held-back search's end: what a search
    over candidates polls (:func:`codur.validate.search.search`'s ``cancel``)."""

    def __init__(self, cancel: threading.Event, held: Held) -> None:
        self.cancel, self.held = cancel, held

    def is_set(self) -> bool:
        return self.cancel.is_set() or self.held.over()


def rank(held: Held, originals: dict[str, str], loc: Localization | None) -> tuple[Candidate, Evaluation]:
    """The best of ``held.found`` by the module's order. ``originals``: path -> original text
    of every file they change; ``loc``: the search's localization (None: no coverage known).
    Raises IndexError when nothing is held."""
    def key(item: tuple[int, tuple[Candidate, Evaluation, dict[str, str]]]) -> tuple:
        order, (candidate, evaluation, news) = item
        logprob = float(getattr(candidate, "provenance", {}).get("logprob", 0.0) or 0.0)
        return (len(evaluation.held), behaviour_changed(loc, originals, news), edit_size(originals, news),
                -logprob, order)
    _, (candidate, evaluation, _) = min(enumerate(held.found), key=key)
    return candidate, evaluation


def changed_lines(old: str, new: str) -> set[int]:
    """The 1-based lines of ``old`` a change to ``new`` replaces or deletes; for a pure insertion,
    the lines on either side of it."""
    out: set[int] = set()
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            out.update(range(i1 + 1, i2 + 1))
        elif tag == "insert":
            out.update({i1, i1 + 1})
    return out


def behaviour_changed(loc: Localization | None, originals: dict[str, str], news: dict[str, str]) -> int:
    """How many passing tests ran a line the change edits (its files' ``changed_lines``), by the
    localization's per-test coverage: the tests whose behaviour it may alter. 0 without coverage."""
    if loc is None or loc.root is None:
        return 0
    passing = {t.nodeid for t in loc.tests if t.outcome == "passed"}
    edited = {rel: changed_lines(originals.get(rel, ""), text) for rel, text in news.items()}
    tests: set[str] = set()
    for path, by_line in loc.lines.items():
        rel = relative(loc.root, path)
        for line in edited.get(rel, ()) if rel else ():
            tests.update(t for t in by_line.get(line, ()) if t in passing)
    return len(tests)


def edit_size(originals: dict[str, str], news: dict[str, str]) -> int:
    """Tokens (names, numbers, operators) a change removes and adds, over its changed lines."""
    total = 0
    for rel, text in news.items():
        old = originals.get(rel, "").splitlines()
        new = text.splitlines()
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            a = _TOKEN.findall("\n".join(old[i1:i2]))
            b = _TOKEN.findall("\n".join(new[j1:j2]))
            same = difflib.SequenceMatcher(None, a, b, autojunk=False)
            total += len(a) + len(b) - 2 * sum(m.size for m in same.get_matching_blocks())
    return total
