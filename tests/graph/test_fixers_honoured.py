"""``fixers`` holds on every route: with mutation search alone no model is called, not by the
planner for an unclassified task, not by the critic, and a failed verify does not reach the agent."""

from __future__ import annotations

from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.graph.context import build_context
from codur.graph.execution.review import decide
from codur.graph.records import AgentOutcome, Observation, TestObservation
from codur.graph.verification.verdict import Verdict
from codur.llm import ScriptedChatModel, StaticModelProvider
from codur.testing.report import records_of, run_of

TASK = "the total in billing.py for 10 items should include the discount"  # no fast path
FIX_NEW = "if quantity >= BULK_THRESHOLD:"


def recording_models() -> dict[str, ScriptedChatModel]:
    return {role: ScriptedChatModel(replies=['{"task_type": "code_fix", "steps": ["fix"]}'] * 5)
            for role in ("planner", "actor", "critic")}


def test_mutation_alone_calls_no_model_for_an_unclassified_task(invoice_repo: Path):
    models = recording_models()
    result = run(RunRequest(task=TASK, repo=invoice_repo), models=StaticModelProvider(models),
                 config=CodurConfig(fixers=["mutation"], critic=True, repair_workers=1, mutation_time_box_s=30))
    assert result.status is RunStatus.SUCCESS, result.reason
    assert FIX_NEW in (invoice_repo / "billing.py").read_text()
    assert {role: len(m.calls) for role, m in models.items()} == {"planner": 0, "actor": 0, "critic": 0}


def test_mutation_alone_without_failing_tests_ends_no_fixer_without_a_model_call(tmp_path: Path):
    repo = tmp_path / "green"
    repo.mkdir()
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (repo / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    models = recording_models()
    result = run(RunRequest(task="the calculator's numbers, nicer", repo=repo), models=StaticModelProvider(models),
                 config=CodurConfig(fixers=["mutation"], critic=True))
    assert result.status is RunStatus.FAILED and result.reason.startswith("no_fixer"), result.reason
    assert sum(len(m.calls) for m in models.values()) == 0


def test_a_failed_verify_does_not_route_to_the_agent_when_it_is_not_a_fixer(invoice_repo: Path):
    limits = {"max_turns": 3, "timeout_s": 60, "token_budget": 1000}
    config = CodurConfig(fixers=["mutation"], **limits)
    ctx = build_context(invoice_repo, config, models=StaticModelProvider(recording_models()))
    failed = Verdict(passed=False, strategy="tests", failing_tests=["test_billing.py::test_x"], signature="x")
    state = {"task": TASK, "repo": str(invoice_repo), "task_type": "code_fix", "turn": 0, "patch_attempted": True,
             "verification_details": failed, "failure_signatures": ["x"],
             "agent_outcome": AgentOutcome(agent="patch", status="patched", edits=1, files=["billing.py"]),
             "observation": Observation(files=["billing.py"], tests=TestObservation(
                 run=run_of(records_of(failed=["test_billing.py::test_x"]), 1)))}
    assert decide(state, ctx)[:2] == ("done", "verification_failed")
    with_agent = build_context(invoice_repo, CodurConfig(**limits), models=StaticModelProvider(recording_models()))
    assert decide(state, with_agent)[0] == "delegate"  # the same state with the agent enabled: another turn
