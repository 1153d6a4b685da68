"""The state's records take only their outcome enums' words and keep the word itself."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from codur.core.contracts import PatchStatus, RunStatus
from codur.core.ports import QuotaStatus
from codur.graph.records import MAX_FAILED_IDS, AgentOutcome, Observation, TestObservation, TurnStatus, kept_run
from codur.graph.state import initial_state, state_serializer
from codur.testing.report import TestRecord, TestRun, run_of


def test_an_outcome_takes_a_turn_or_patch_word_and_keeps_the_word():
    turn = AgentOutcome(agent="coder", status=TurnStatus.COMPLETED)
    patch = AgentOutcome(agent="patch", status="not_found", quota="rate_limited")
    assert type(turn.status) is str and turn.status == "completed" and turn.quota == QuotaStatus.OK
    assert patch.status == PatchStatus.NOT_FOUND and type(patch.quota) is str
    assert json.loads(patch.model_dump_json())["status"] == "not_found"
    with pytest.raises(ValidationError):
        AgentOutcome(agent="coder", status="finished")
    with pytest.raises(ValidationError):
        AgentOutcome(agent="coder", status="completed", quota="plenty")


def test_the_checkpoint_serializer_loads_the_state_and_its_outcome_words_back():
    serde = state_serializer()
    state = {**initial_state("fix it", "/repo", "r1"), "agent_outcome": AgentOutcome(agent="patch", status="patched")}
    back = serde.loads_typed(serde.dumps_typed(state))
    assert back["status"] == RunStatus.RUNNING and back["agent_outcome"].status == "patched"


def _failing(n: int) -> dict[str, TestRecord]:
    return {f"t.py::test_{i}": TestRecord(f"t.py::test_{i}", "failed", 0.1, "/repo/t.py", message=f"E{i}",
                                          traceback=f"E   assert {i} == 0") for i in range(n)}


def test_observes_run_is_kept_cut_in_the_state_and_read_through_the_observation():
    tests = {"t.py::test_ok": TestRecord("t.py::test_ok", "passed", 0.2, "/repo/t.py"), **_failing(MAX_FAILED_IDS + 5)}
    run = run_of(tests, 1, duration_s=2.34567, output="x" * 5000, lines={"/repo/m.py": {3: ["t.py::test_0"]}})
    kept = kept_run(run, targets=["t.py::test_1004"])
    assert kept.lines == {} and len(kept.output) == 1200 and kept.duration_s == 2.346
    assert len(kept.failed) == MAX_FAILED_IDS + 1 and kept.failed[-1] == "t.py::test_1004"  # the target kept
    assert kept.tests["t.py::test_1004"].traceback == "E   assert 1004 == 0"
    assert kept.tests["t.py::test_0"] == TestRecord("t.py::test_0", "failed")  # id and outcome only
    seen = TestObservation(run=kept, command="pytest", targets=["t.py::test_1004"])
    assert seen.summary == f"1 passed, {MAX_FAILED_IDS + 5} failed" and seen.passed_count == 1
    assert seen.exit_code == 1 and seen.duration_s == 2.346 and seen["command"] == "pytest"
    assert "FAILED t.py::test_1004\nE   assert 1004 == 0" in seen.report and "FAILED t.py::test_0" not in seen.report
    untargeted = TestObservation(run=kept_run(run, []))
    assert "FAILED t.py::test_0\nE   assert 0 == 0" in untargeted.report
    assert untargeted.run.tests["t.py::test_2"].traceback == ""  # past the two the prompt shows


def test_a_timed_out_observation_says_so_and_the_serializer_loads_the_run_back():
    hung = TestObservation(run=run_of(None, None, timed_out=True, duration_s=30.0, output="...", summary="timed out"))
    assert hung.failed == ["(the test run timed out)"] and hung.report.startswith("pytest timed out after 30s")
    serde = state_serializer()
    ran = TestObservation(run=kept_run(run_of(_failing(3), 1), []), selection=["t.py"])
    for tests in (hung, ran):
        state = {**initial_state("fix it", "/repo", "r1"), "observation": Observation(has_tests=True, tests=tests)}
        back = serde.loads_typed(serde.dumps_typed(state))["observation"].tests
        assert back == tests and type(back.run) is TestRun and back.report == tests.report
