"""Partial fixes chained (:mod:`codur.patch.chain`): the range and membership clauses of the
condition expander, near-miss mutants joined into one candidate, and the tests a partial fix
left failing localized again."""

from __future__ import annotations

from pathlib import Path

from codur import RunStatus
from codur.mutation import generate_mutants
from codur.mutation.mutants import Mutant
from codur.patch.chain import Chain, MutantUnion, follow_key, join
from codur.testing.report import TestRecord
from codur.validate.localize import Localization, refocus
from codur.validate.search import CandidateQueue
from codur.validate.source import Edit

from .conftest import mutation_run, write_repo


def _clauses(tmp_path: Path, code: str) -> list[str]:
    (tmp_path / "m.py").write_text(code)
    scores = {("m.py", n): 1.0 for n in range(1, code.count("\n") + 2)}
    found, _ = generate_mutants(tmp_path, scores, limit=100_000, max_pairs=0)
    return [m.description.split("with `")[1].rstrip("`") for m in found if "with `" in m.description]


# ---------------------------------------------------------------- the sign clause

STOCK = '''\
"""A shop's stock of one item."""


def reserve(stock, quantity):
    """What is left of ``stock`` (a count) once ``quantity`` items are taken; raises
    ValueError when that is not a number of items the stock holds."""
    if quantity > stock:
        raise ValueError("not enough stock")
    return stock - quantity
'''

STOCK_TESTS = '''\
import pytest

from stock import reserve


def test_taking_some_leaves_the_rest():
    assert reserve(5, 2) == 3
    assert reserve(3, 3) == 0


def test_taking_more_than_there_is_is_refused():
    with pytest.raises(ValueError):
        reserve(3, 4)


def test_a_negative_quantity_is_refused():
    with pytest.raises(ValueError):
        reserve(3, -1)
'''


def test_a_numeric_name_compared_with_an_ordered_operator_gets_its_sign_checked(tmp_path: Path):
    found = _clauses(tmp_path, STOCK)
    assert "quantity > stock or quantity < 0" in found and "quantity > stock and quantity >= 0" in found
    assert "quantity > stock or stock < 0" in found
    text = "def f(name, other):\n    if name > other:\n        return name.lower() + other.upper()\n    return ''\n"
    assert not [c for c in _clauses(tmp_path, text) if "< 0" in c or ">= 0" in c]  # strings by their use: no sign


def test_the_mutation_search_refuses_a_negative_quantity(tmp_path: Path):
    repo = write_repo(tmp_path / "stock", {"stock.py": STOCK, "test_stock.py": STOCK_TESTS})
    result = mutation_run(repo, repair_workers=1, mutation_time_box_s=120)
    assert result.status is RunStatus.SUCCESS, result.reason
    # the condition widened, or (the failing test's "DID NOT RAISE ValueError" read) a parameter check
    fixed = (repo / "stock.py").read_text()
    assert "if quantity > stock or quantity < 0:" in fixed or \
        "    if quantity < 0:\n        raise ValueError('quantity must not be negative')\n" in fixed, fixed
    assert (repo / "test_stock.py").read_text() == STOCK_TESTS


# ---------------------------------------------------------------- the membership clause

SESSIONS = '''\
"""Session tokens and when each expires."""


class Sessions:
    """Tokens with their expiry time (seconds on ``clock``, a function giving the time now)."""

    def __init__(self, clock):
        self.clock = clock
        self._expiry = {}

    def __contains__(self, token):
        return token in self._expiry and self.clock() < self._expiry[token]

    def __len__(self):
        return len(self._expiry)

    def renew(self, token, expires):
        """Keep ``token`` until ``expires``; a new token that has expired already is not kept."""
        if expires <= self.clock():
            return
        self._expiry[token] = expires
'''

SESSIONS_TESTS = '''\
from sessions import Sessions


def _at(now):
    clock = [now]
    return Sessions(lambda: clock[0]), clock


def test_a_token_lives_until_it_expires():
    sessions, clock = _at(0)
    sessions.renew("a", 10)
    assert "a" in sessions
    clock[0] = 11
    assert "a" not in sessions


def test_a_new_token_that_has_expired_is_not_kept():
    sessions, _ = _at(5)
    sessions.renew("b", 3)
    assert "b" not in sessions and len(sessions) == 0


def test_a_token_renewed_into_the_past_ends():
    sessions, clock = _at(0)
    sessions.renew("a", 10)
    clock[0] = 5
    sessions.renew("a", 3)
    assert "a" not in sessions
'''


def test_a_method_of_a_class_answering_in_gets_membership_clauses(tmp_path: Path):
    found = _clauses(tmp_path, SESSIONS)
    assert "expires <= self.clock() and token not in self" in found
    assert "expires <= self.clock() and token in self" in found
    assert not [c for c in found if c.startswith("token in self._expiry") and c.endswith(" in self")]  # recursion
    plain = SESSIONS.replace("    def __contains__(self, token):\n        return token in self._expiry and "
                             "self.clock() < self._expiry[token]\n\n", "")
    assert not [c for c in _clauses(tmp_path, plain) if c.endswith(" in self")]  # nothing answers `in`
    mapping = ("from collections.abc import Mapping\n\n\nclass Table(Mapping):\n"
               "    def put(self, key, value):\n        if value is None:\n            return\n")
    assert "value is None and key not in self" in _clauses(tmp_path, mapping)  # a Mapping answers `in`


def test_the_mutation_search_ends_a_token_renewed_into_the_past(tmp_path: Path):
    repo = write_repo(tmp_path / "sessions", {"sessions.py": SESSIONS, "test_sessions.py": SESSIONS_TESTS})
    result = mutation_run(repo, repair_workers=1, mutation_time_box_s=120)
    assert result.status is RunStatus.SUCCESS, result.reason
    assert "if expires <= self.clock() and token not in self:" in (repo / "sessions.py").read_text()


# ---------------------------------------------------------------- unions of near misses

def _mutant(file: str, line: int, start: int, new: str, end: int | None = None) -> Mutant:
    edit = Edit(start, start if end is None else end, new)
    return Mutant(file, line, "op", (edit,), f"edit at {line}", 1.0, 1.0, (file, line))


def test_near_misses_at_different_statements_are_joined_once():
    a, b = _mutant("m.py", 1, 0, "A"), _mutant("m.py", 5, 20, "B")
    both = join(a, b)
    assert isinstance(both, MutantUnion) and both.parts == (a, b) and join(b, a) == both
    assert both.apply("x" * 30) == "A" + "x" * 20 + "B" + "x" * 10
    assert both.label == "mutants m.py:1 edit at 1 + m.py:5 edit at 5 together"
    assert join(a, _mutant("m.py", 1, 9, "C")) is None  # the same statement
    assert join(a, Edit(0, 0, "")) is None  # not a mutant
    other = _mutant("n.py", 2, 0, "N")
    assert join(both, other).apply_files({"m.py": "x" * 30, "n.py": "y"}) == {
        "m.py": "A" + "x" * 20 + "B" + "x" * 10, "n.py": "Ny"}


def test_the_chain_joins_sets_that_each_fix_a_test_the_other_does_not(tmp_path: Path):
    loc = Localization((TestRecord("t1", "failed"), TestRecord("t2", "failed"), TestRecord("t3", "failed")))
    chain = Chain(tmp_path, loc, unions=2)
    a, b, c, d = (_mutant("m.py", n, n * 10, "z") for n in (1, 2, 3, 4))
    assert chain.unions(a, frozenset({"t1"})) == []
    assert chain.unions(b, frozenset({"t1", "t2"})) == []  # a's set inside it: nothing to add
    assert [u.parts for u in chain.unions(c, frozenset({"t3"}))] == [(b, c), (a, c)]  # most tests first
    assert chain.unions(d, frozenset({"t2"})) == []  # the budget of two is spent
    queue = CandidateQueue()
    chain.queue_after(Edit(0, 0, ""), frozenset({"t1"}), queue, 3, None)  # not a mutant: not joined here
    assert len(queue) == 0


def test_follow_ups_alternate_with_the_rest_of_the_queue():
    assert [follow_key(4, i) for i in range(3)] == [4.5, 5.5, 6.5]
    assert follow_key((1, 0, 7), 1) == (1, 0, 8.5) and (1, 0, 8) < follow_key((1, 0, 7), 1) < (1, 0, 9)


def test_the_tests_left_failing_are_localized_again(tmp_path: Path):
    tests = (TestRecord("t_a", "failed"), TestRecord("t_b", "failed"), TestRecord("t_ok", "passed"))
    lines = {str(tmp_path / "m.py"): {1: ["t_a", "t_ok"], 2: ["t_a"], 5: ["t_b"], 6: ["t_b", "t_ok"]}}
    loc = Localization(tests, root=tmp_path, lines=lines)
    scores = refocus(loc, frozenset({"t_b"}))
    assert set(scores) == {("m.py", 5), ("m.py", 6)} and scores[("m.py", 5)] > scores[("m.py", 6)]
    assert refocus(loc, frozenset({"t_ok"})) == {} and refocus(Localization(tests), frozenset({"t_b"})) == {}


# ---------------------------------------------------------------- two faults, end to end

READINGS = '''\
"""Figures of a list of sensor readings."""


def mean(values):
    """The arithmetic mean of ``values`` (a non-empty list of numbers)."""
    total = 1
    for value in values:
        total += value
    return total / len(values)


def describe(values):
    """``"n readings, mean m"`` for ``values``."""
    return f"{len(values)} readings, mean {mean(values):g}"


def in_band(value, low, high):
    """Whether ``value`` lies in the band from ``low`` to ``high``, both ends included."""
    return low < value <= high
'''

READINGS_TESTS = '''\
from readings import describe, in_band, mean


def test_the_mean_of_two():
    assert mean([2, 4]) == 3
    assert mean([1, 2]) == 1.5


def test_a_description():
    assert describe([1, 2, 3]) == "3 readings, mean 2"


def test_the_band_holds_its_low_end():
    assert in_band(1, 1, 3)


def test_the_band_holds_what_is_inside_and_not_above():
    assert in_band(2, 1, 3) and in_band(3, 1, 3) and not in_band(4, 1, 3)
'''


def test_two_faults_each_failing_their_own_tests_are_fixed_together(tmp_path: Path):
    repo = write_repo(tmp_path / "readings", {"readings.py": READINGS, "test_readings.py": READINGS_TESTS})
    events: list = []
    result = mutation_run(repo, events=events, repair_workers=1, mutation_time_box_s=120)
    assert result.status is RunStatus.SUCCESS, result.reason
    text = (repo / "readings.py").read_text()
    assert "    total = 0\n" in text and "return low <= value <= high\n" in text
    found = [e for e in events if e["event_type"] == "patch.found"]
    assert found and " together" in found[0]["label"] and found[0]["label"].startswith("mutants ")
    near = [e for e in events if e["event_type"] == "patch.candidate" and e["result"] == "near_miss"]
    assert {e["fixed"] for e in near} >= {1, 2}  # the two halves: the band's one test, the mean's two


def test_the_other_half_is_looked_for_away_from_the_near_miss(tmp_path: Path):
    (tmp_path / "m.py").write_text("def f(x):\n    if x > 1:\n        return 1\n    return 0\n\n\n"
                                   "def g(y):\n    return y + 1\n")
    tests = (TestRecord("t_a", "failed"), TestRecord("t_b", "failed"), TestRecord("t_ok", "passed"))
    lines = {str(tmp_path / "m.py"): {1: ["t_a", "t_ok"], 2: ["t_a", "t_ok"], 3: ["t_a"], 7: ["t_b"], 8: ["t_b"]}}
    loc = Localization(tests, root=tmp_path, lines=lines)
    found = Chain(tmp_path, loc).refocus(frozenset({"t_a"}), set())  # t_b is left: g's line
    assert found and {m.statement for m in found} == {("m.py", 8)} and all(m.probe for m in found)
    chain = Chain(tmp_path, loc)
    assert chain.refocus(frozenset({"t_a"}), {("m.py", 8)}) == []  # the near miss's own statement
    assert Chain(tmp_path, loc, refocused=2).refocus(frozenset({"t_a"}), set())[:2] == found[:2]
    assert chain.refocus(frozenset({"t_a"}), set()) == []  # that set of tests was localized again already


def test_a_condition_raising_the_exception_a_test_expected_is_widened_first(tmp_path: Path):
    (tmp_path / "stock.py").write_text(STOCK)
    scores = {("stock.py", n): 1.0 for n in range(1, STOCK.count("\n") + 1)}

    def ops(raises: frozenset[str]) -> list[str]:
        found, _ = generate_mutants(tmp_path, scores, limit=100_000, max_pairs=0, raises=raises)
        return [m.operator for m in found if m.operator != "add_parameter_check"]

    asked = ops(frozenset({"ValueError"}))
    widened = asked.count("less_specific_if")
    assert widened == 2 and asked[:widened] == ["less_specific_if"] * widened  # `or quantity < 0`, `or stock < 0`
    assert ops(frozenset())[:widened] != ["less_specific_if"] * widened
    assert ops(frozenset({"KeyError"}))[:widened] != ["less_specific_if"] * widened  # not the exception raised
