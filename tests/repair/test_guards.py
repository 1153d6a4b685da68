"""The parameter check a failing test asks for (codur/mutation/guards.py): the expected
exception read from pytest's and unittest's messages, and a real repo fixed by the mutation
search with the guard that keeps zero allowed."""

from __future__ import annotations

from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.llm import ScriptedChatModel, StaticModelProvider
from codur.mutation import generate_mutants
from codur.validate.failures import expected_raises

POOL = '''\
class ConnectionPool:
    """A fixed number of reusable connections."""

    def __init__(self, capacity, factory):
        """``capacity``: how many connections at most; 0 means none may be opened."""
        self.capacity = capacity
        self.factory = factory
        self.idle = []
        self.opened = 0

    def acquire(self):
        if self.idle:
            return self.idle.pop()
        if self.opened >= self.capacity:
            raise RuntimeError("pool exhausted")
        self.opened += 1
        return self.factory()

    def release(self, conn):
        self.idle.append(conn)
'''

TESTS = '''\
import unittest

import pytest

from pool import ConnectionPool


def test_reuses_a_released_connection():
    pool = ConnectionPool(1, object)
    conn = pool.acquire()
    pool.release(conn)
    assert pool.acquire() is conn


def test_a_zero_capacity_pool_opens_nothing():
    pool = ConnectionPool(0, object)
    with pytest.raises(RuntimeError):
        pool.acquire()


def test_negative_capacity_is_refused():
    with pytest.raises(ValueError):
        ConnectionPool(-1, object)


class CapacityTest(unittest.TestCase):
    def test_negative_capacity_is_refused(self):
        with self.assertRaises(ValueError):
            ConnectionPool(-2, object)
'''


def test_expected_exceptions_are_read_from_both_runners_messages():
    assert expected_raises(["Failed: DID NOT RAISE <class 'ValueError'>"]) == {"ValueError"}
    assert expected_raises(["AssertionError: KeyError not raised"]) == {"KeyError"}
    assert expected_raises(["Failed: DID NOT RAISE <class 'pool.errors.PoolError'>"]) == {"PoolError"}
    assert expected_raises(["Failed: DID NOT RAISE ValueError"]) == {"ValueError"}  # pytest 9
    assert expected_raises(["assert 3 == 4", "", "ValueError: bad capacity"]) == frozenset()


def test_guards_are_generated_only_when_an_exception_was_expected(tmp_path: Path):
    (tmp_path / "pool.py").write_text(POOL)
    scores = {("pool.py", n): 1.0 for n in range(4, 10)}
    plain, _ = generate_mutants(tmp_path, scores, limit=10_000)
    assert not [m for m in plain if m.operator == "add_parameter_check"]
    hinted, texts = generate_mutants(tmp_path, scores, limit=10_000, raises=frozenset({"ValueError"}))
    guards = [m for m in hinted if m.operator == "add_parameter_check"]
    assert len(guards) == 6  # capacity, factory × < 0, <= 0, is None
    assert [m.operator for m in hinted[:6]] == ["add_parameter_check"] * 6  # what the failing test asked for, first
    fixed = next(m for m in guards if "capacity < 0" in m.description).apply(texts["pool.py"])
    expected = ("0 means none may be opened.\"\"\"\n"
                "        if capacity < 0:\n"
                "            raise ValueError('capacity must not be negative')\n"
                "        self.capacity = capacity\n")
    assert expected in fixed, fixed
    compile(fixed, "pool.py", "exec")


def test_the_mutation_search_adds_the_check_the_tests_ask_for(tmp_path: Path):
    repo = tmp_path / "pool"
    repo.mkdir()
    (repo / "pool.py").write_text(POOL)
    (repo / "test_pool.py").write_text(TESTS)
    models = {role: ScriptedChatModel(replies=[]) for role in ("planner", "actor", "critic")}
    result = run(RunRequest(task="make the failing tests pass", repo=repo), models=StaticModelProvider(models),
                 config=CodurConfig(fixers=["mutation"], repair_workers=1, mutation_time_box_s=60))
    assert result.status is RunStatus.SUCCESS, result.reason
    text = (repo / "pool.py").read_text()
    assert "if capacity < 0:\n            raise ValueError(" in text, text
    assert (repo / "test_pool.py").read_text() == TESTS


def test_a_check_goes_after_the_docstring_and_never_above_a_docstring_alone(tmp_path: Path):
    (tmp_path / "limits.py").write_text('def cap(n):\n    """The cap."""\n    return min(n, 10)\n\n\n'
                                        'def reserved(n):\n    """Not written yet."""\n')
    scores = {("limits.py", n): 1.0 for n in range(1, 8)}
    found, texts = generate_mutants(tmp_path, scores, limit=10_000, raises=frozenset({"ValueError"}))
    checks = [m for m in found if m.operator == "add_parameter_check"]
    assert {m.description.split("`")[-2] for m in checks} == {"cap"}
    assert '"""The cap."""\n    if n < 0:\n' in next(m for m in checks if "n < 0" in m.description).apply(
        texts["limits.py"])
