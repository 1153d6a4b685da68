"""A mutant that fixed a failing test but breaks the passing tests of its file: under test
selection its guard run stops at the first test it breaks (no model reads the others), while
a model's sample, whose broken tests go back to the model, is guarded whole. Real pytest
runs in a real worker copy."""

from __future__ import annotations

from codur.mutation.mutant import Mutant
from codur.testing import command as testcmd
from codur.validate.evaluate import CandidateVerdict, Checks, Stage, evaluate
from codur.validate.source import Edit
from codur.validate.worker import Worker

from .conftest import Rewrite, write_repo

SHELF = '''\
def restock(stock, item, count):
    """Add ``count`` of ``item`` to ``stock``; at most 10 at a time."""
    if count > 10:
        raise ValueError(f"too many {item}: {count}")
    stock[item] = stock.get(item, 0) + count
    return stock
'''

TESTS = '''\
import pytest

from shelf import restock


def test_new_item():
    assert restock({}, "nail", 3) == {"nail": 3}


def test_existing_item():
    assert restock({"nail": 1}, "nail", 2) == {"nail": 3}


def test_ten_at_once():
    assert restock({}, "screw", 10) == {"screw": 10}


def test_negative_count_is_refused():
    with pytest.raises(ValueError):
        restock({}, "nail", -1)


def test_item_names_ignore_case():
    assert restock({"Nail": 1}, "nail", 1) == {"Nail": 2}
'''

FAILING = frozenset({"test_shelf.py::test_negative_count_is_refused", "test_shelf.py::test_item_names_ignore_case"})
PASSING = frozenset({"test_shelf.py::test_new_item", "test_shelf.py::test_existing_item",
                     "test_shelf.py::test_ten_at_once"})
FLAGS = ("-p", testcmd.PLUGIN, "-p", "no:cacheprovider", "-q")


def _checks() -> Checks:
    probe = Stage((*sorted(FAILING), *FLAGS), 60.0, report=True)

    def covered(tests: frozenset[str], report: bool) -> Stage:
        return Stage((*sorted(tests), *FLAGS, *(() if report else ("-x",))), 60.0, report=report)
    return Checks([Stage((*sorted(FAILING), *FLAGS, "-x"), 60.0)], probe=probe, failing=FAILING, passing=PASSING,
                  covering={"shelf.py": PASSING}, gate=Stage(FLAGS, 60.0), covered=covered, sweep=probe)


#: ``if count > 10:`` -> ``if True:``: every restock raises, so the negative count is refused
#: (one failing test fixed) and the three passing tests break.
START = SHELF.index("count > 10")
ALWAYS = Mutant("shelf.py", 3, "replace_condition", (Edit(START, START + len("count > 10"), "True"),),
                "replaced `count > 10` with `True`", 1.0, 0.5, ("shelf.py", 3), probed=True)


#: The same edit as a model's sample: its broken tests go back to the model.
SAMPLE = Rewrite("shelf.py", "count > 10", "True", probe=True)


def _judge(tmp_path, candidate):
    repo = write_repo(tmp_path / "repo", {"shelf.py": SHELF, "test_shelf.py": TESTS})
    with Worker(repo, testcmd.resolve(repo, None)) as worker:
        evaluation = evaluate(worker, candidate, SHELF, _checks())
        assert (worker.root / "shelf.py").read_text() == SHELF  # restored
    return evaluation


def test_a_mutants_guard_stops_at_the_first_test_it_breaks(tmp_path):
    evaluation = _judge(tmp_path, ALWAYS)
    assert evaluation.status is CandidateVerdict.FAILED
    assert evaluation.fixed_tests == {"test_shelf.py::test_negative_count_is_refused"}
    messages = [message for _, message in evaluation.broke if message]
    assert len(messages) == 1 and "too many" in messages[0]  # one test ran past the first break: none
    assert {t for t, _ in evaluation.broke} == PASSING  # the tests it never ran count as broken too


def test_a_model_samples_guard_runs_every_covering_test(tmp_path):
    evaluation = _judge(tmp_path, SAMPLE)
    assert evaluation.status is CandidateVerdict.FAILED
    assert {t for t, message in evaluation.broke if "too many" in message} == PASSING
