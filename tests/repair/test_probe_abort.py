"""A probed candidate whose guard run is killed (the time box of the mutation phase ended,
a better candidate won) is not judged: it comes back "aborted", so the search keeps it
untried. Before, it came back "failed" with the tests it fixed, and a near miss was lost:
on a real two-fault bug the first half of the fix was judged at the end of the mutation
phase's 5-second box and never joined with the second half."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codur.testing.report import TestRecord, TestRun
from codur.validate.evaluate import CandidateVerdict, Checks, Stage, evaluate

from .conftest import Rewrite

FAILING = frozenset({"tests/test_m.py::test_negative", "tests/test_m.py::test_overwrite"})
PASSING = frozenset({"tests/test_m.py::test_insert"})


@dataclass
class _Worker:
    """Answers the probe with one of the two failing tests passing, then the guard with
    ``guard`` (a killed run: exit code None)."""

    root: Path
    guard: TestRun

    def __post_init__(self) -> None:
        self.tmp, self.calls = self.root, 0

    def run(self, args, timeout_s, env=None, report=None) -> TestRun:
        self.calls += 1
        if self.calls == 1:
            tests = {"tests/test_m.py::test_negative": TestRecord("tests/test_m.py::test_negative", "passed"),
                     "tests/test_m.py::test_overwrite": TestRecord("tests/test_m.py::test_overwrite", "failed",
                                                                   message="AssertionError")}
            return TestRun(exit_code=1, tests=tests)
        return self.guard


#: The first half of a two-fault fix, judged as a mutant is (no model reads its failures).
HALF = Rewrite("m.py", "size > maxsize", "size > maxsize or size < 0", probe=True, feedback=False)


def _checks() -> Checks:
    stage = Stage(("tests",), 5.0)
    return Checks([stage, stage], probe=Stage(("tests",), 5.0, report=True),
                  guard=Stage(("tests",), 5.0, report=True), failing=FAILING, passing=PASSING)


def _judge(tmp_path: Path, guard: TestRun):
    (tmp_path / "m.py").write_text("def put(size, maxsize):\n    if size > maxsize:\n        raise ValueError\n")
    worker = _Worker(tmp_path, guard)
    evaluation = evaluate(worker, HALF, (tmp_path / "m.py").read_text(), _checks())
    assert worker.calls == 2  # the probe, then the guard
    assert (tmp_path / "m.py").read_text().count("or size < 0") == 0  # restored
    return evaluation


def test_a_probed_candidate_whose_guard_run_was_killed_is_aborted_not_failed(tmp_path: Path):
    evaluation = _judge(tmp_path, TestRun(exit_code=None))
    assert evaluation.status is CandidateVerdict.ABORTED
    assert evaluation.fixed_tests == {"tests/test_m.py::test_negative"}


def test_the_same_candidate_with_its_guard_run_through_is_a_near_miss(tmp_path: Path):
    guard = TestRun(exit_code=0, tests={t: TestRecord(t, "passed") for t in PASSING})
    evaluation = _judge(tmp_path, guard)
    assert evaluation.status is CandidateVerdict.NEAR_MISS
    assert evaluation.fixed == 1


def test_a_guard_run_that_broke_a_passing_test_is_failed(tmp_path: Path):
    guard = TestRun(exit_code=1, tests={t: TestRecord(t, "failed", message="boom") for t in PASSING})
    evaluation = _judge(tmp_path, guard)
    assert evaluation.status is CandidateVerdict.FAILED
    assert evaluation.broke == (("tests/test_m.py::test_insert", "boom"),)
