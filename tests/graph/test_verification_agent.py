"""The verification agent infers its strategy from the repo, with no file-name heuristics."""

from __future__ import annotations

import sys
from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.config.tables import AgentConfig
from codur.graph.verification.deterministic import verify_repo
from codur.llm import ScriptedChatModel, StaticModelProvider
from codur.tools.executor import ToolExecutor


def ctx_for(path: Path):
    return ToolExecutor(path).ctx


def test_tests_strategy_reports_failures_and_signature(invoice_repo: Path):
    v = verify_repo(ctx_for(invoice_repo), task="fix", task_type="code_fix", changed=[], has_tests=True)
    assert not v.passed and v.strategy == "tests"
    assert sorted(v.failing_tests) == ["test_billing.py::test_discount_starts_at_threshold",
                                       "test_billing.py::test_line_total_with_bulk_discount"]
    assert "assert 0 == 10" in v.signature
    assert v.evidence[0].command == "pytest" and not v.evidence[0].ok


def test_hybrid_adds_syntax_check_of_changed_files(invoice_repo: Path):
    (invoice_repo / "billing.py").write_text("def broken(:\n")
    v = verify_repo(ctx_for(invoice_repo), task="fix", task_type="code_fix", changed=["billing.py"], has_tests=True)
    assert not v.passed and v.strategy == "hybrid"
    assert any(e.command == "syntax check billing.py" and not e.ok for e in v.evidence)


def test_execution_strategy_compares_expected_output_from_the_task(tmp_path: Path):
    (tmp_path / "greet.py").write_text('if __name__ == "__main__":\n    print("hello, world")\n')
    ctx = ctx_for(tmp_path)
    good = verify_repo(ctx, task='make greet.py print "hello, world"', task_type="code_fix", changed=[],
                       has_tests=False)
    assert good.passed and good.strategy == "entry_points" and good.evidence[0].command == "python greet.py"
    bad = verify_repo(ctx, task='make greet.py print "goodbye"', task_type="code_fix", changed=[], has_tests=False)
    assert not bad.passed


def test_execution_strategy_compares_the_repos_expected_txt(tmp_path: Path):
    (tmp_path / "report.py").write_text('if __name__ == "__main__":\n    print("total:", 2 + 2)\n')
    (tmp_path / "cli.py").write_text('if __name__ == "__main__":\n    print("usage: cli")\n')
    (tmp_path / "expected.txt").write_text("total: 4\n")
    ctx = ctx_for(tmp_path)
    good = verify_repo(ctx, task="fix the report", task_type="code_fix", changed=["report.py"], has_tests=False)
    assert good.passed and good.evidence[-2].command == "compare with expected.txt"
    assert good.evidence[-2].output == "report.py prints it"
    (tmp_path / "expected.txt").write_text("total: 5\n")
    bad = verify_repo(ctx, task="fix the report", task_type="code_fix", changed=["report.py"], has_tests=False)
    assert not bad.passed and "expected 'total: 5', got 'total: 4'" in bad.evidence[-2].output
    assert "compare with expected.txt" in bad.reasoning
    cheat = verify_repo(ctx, task="fix the report", task_type="code_fix", changed=["expected.txt"], has_tests=False)
    assert not cheat.passed and "changed by the run" in cheat.evidence[-1].output


def test_execution_without_expected_output_needs_exit_zero(tmp_path: Path):
    (tmp_path / "tool.py").write_text('import sys\nif __name__ == "__main__":\n    sys.exit(3)\n')
    v = verify_repo(ctx_for(tmp_path), task="fix the tool", task_type="code_fix", changed=[], has_tests=False)
    assert not v.passed and v.strategy == "entry_points"


def test_static_strategy_when_no_tests_and_no_entry_points(tmp_path: Path):
    (tmp_path / "lib.py").write_text("def f(:\n")
    v = verify_repo(ctx_for(tmp_path), task="add f", task_type="code_generation", changed=["lib.py"], has_tests=False)
    assert not v.passed and v.strategy == "static" and "line 1" in v.signature


def test_answer_strategy_for_questions(tmp_path: Path):
    ctx = ctx_for(tmp_path)
    question = {"task": "where?", "task_type": "explanation", "changed": [], "has_tests": False}
    assert verify_repo(ctx, **question, answer="in a.py", ended="done").passed
    assert verify_repo(ctx, **question, answer="in a.py", ended="no_tool_call").passed
    assert not verify_repo(ctx, **question, answer=" ", ended="done").passed
    # an answer only counts when the loop ended with one: not through a limit, a repeat stop or a dry run
    for ended in ("max_iterations", "repeating", "stopped: timeout after 5s", "dry_run"):
        v = verify_repo(ctx, **question, answer="(agent ended: repeating)", ended=ended)
        assert not v.passed and v.signature.startswith("no_answer: "), ended
    assert verify_repo(ctx, **question, answer="x", ended="repeating").signature == "no_answer: agent ended: repeating"


def test_configured_command_line_agent_is_delegated_to(invoice_repo: Path):
    script = ("import sys, pathlib; sys.stdin.read(); p = pathlib.Path('billing.py'); "
              "p.write_text(p.read_text().replace('quantity > BULK', 'quantity >= BULK'))")
    config = CodurConfig(agents={"sed-bot": AgentConfig(kind="cli", command=[sys.executable, "-c", script])},
                         default_agent="sed-bot", critic=False, repair=False)
    events: list[dict] = []
    result = run(RunRequest(task="make the failing tests pass", repo=invoice_repo), config=config,
                 models=StaticModelProvider({"actor": ScriptedChatModel(replies=[])}), on_event=events.append)
    assert result.status is RunStatus.SUCCESS
    # The agent wrote the file itself; the run's diff still shows the change.
    assert "-    if quantity > BULK_THRESHOLD:\n+    if quantity >= BULK_THRESHOLD:" in result.diff
    assert result.files_changed == ["billing.py"] and result.llm_calls == 0
    outcome = next(e for e in events if e["event_type"] == "agent.outcome")
    assert outcome["agent"] == "sed-bot" and outcome["edits"] == 1
