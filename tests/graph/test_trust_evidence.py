"""Issue 55's rules, one by one: a shared word relates no test to the task, a task that calls
code intended keeps it from code-only fixers, and a critic reply that is no verdict is no pass."""

from __future__ import annotations

from codur.graph.planning.task import read_task, relate
from codur.graph.verification.judge import without_tests
from codur.graph.verification.llm import ModelRun
from codur.graph.verification.verdict import Verdict

AREA_TEST = "from shapes import perimeter\n\n\ndef test_area_of_rectangle():\n    assert perimeter(2, 3) == 10\n"


def test_a_word_the_test_name_shares_with_the_task_relates_nothing():
    reading = read_task("make area() raise ValueError when a side is negative")
    rel = relate(reading, ["test_shapes.py::test_area_of_rectangle"], test_text=lambda _: AREA_TEST)
    assert rel.related == () and not rel.decided  # in doubt: the planner decides, unrelated without one


def test_a_task_that_calls_code_intended_or_asks_to_change_a_test_keeps_the_code():
    assert read_task("the +1 offset in scale() is intended: update test_units.py to expect 7.21").keeps_code
    assert read_task("this rounding is deliberate, leave it").keeps_code
    assert not read_task("make area() raise ValueError when a side is negative").keeps_code
    assert not read_task("fix the failing tests").keeps_code


def test_a_critic_reply_that_is_no_verdict_is_no_pass():
    fallback = Verdict(passed=True, strategy="static", reasoning="every changed file parses")
    verdict = without_tests(ModelRun(problem="the model's reply is not a verdict: 'looks fine'"), [], fallback)
    assert verdict.passed and verdict.fallback and verdict.unverified and "no verdict" in verdict.unverified
