"""A fix that changed nothing, in a repo with no tests and no entry points, is not verified."""

from __future__ import annotations

from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.graph.verification.deterministic import verify_repo
from codur.llm import ScriptedChatModel, StaticModelProvider
from codur.tools.executor import ToolExecutor


def _untested_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "calc"
    repo.mkdir()
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    return repo


def test_static_check_of_an_unchanged_repo_is_not_a_pass(tmp_path: Path):
    ctx = ToolExecutor(_untested_repo(tmp_path)).ctx
    for task_type in ("code_fix", "code_generation"):
        v = verify_repo(ctx, task="fix add", task_type=task_type, changed=[], has_tests=False)
        assert not v.passed and v.strategy == "static" and v.signature == "no change"
    # a refactor or documentation task keeps the old rule (nothing to compile is no error)
    assert verify_repo(ctx, task="tidy", task_type="refactor", changed=[], has_tests=False).passed


def test_a_fix_that_changed_nothing_does_not_end_verified(tmp_path: Path):
    repo = _untested_repo(tmp_path)
    actor = ScriptedChatModel(replies=["Fixed: add now adds."])
    result = run(RunRequest(task="fix the bug in calc.py", repo=repo), models=StaticModelProvider({"actor": actor}),
                 config=CodurConfig(critic=False, repair=False, max_turns=1))
    assert result.status is RunStatus.FAILED and result.reason == "max_turns"
    assert result.files_changed == [] and result.verification["strategy"] == "static"
    assert not result.verification["passed"]


def test_a_refactor_or_docstring_task_that_changed_nothing_is_no_success(invoice_repo: Path):
    """Issue 55: "nothing changed" is never success for a task that asks for a change (on main a
    refactor or documentation task whose agent only said it was done ended ``success / unverified``;
    so did a resumed run whose first start's edit a cancel had put back)."""
    for task, kind in (("simplify line_total() in billing.py", "refactor"),
                       ("add a docstring to line_total() in billing.py", "documentation")):
        planner = ScriptedChatModel(replies=[f'{{"task_type": "{kind}", "steps": []}}'] * 3)
        actor = ScriptedChatModel(replies=["Done: it is simpler now."] * 3)
        result = run(RunRequest(task=task, repo=invoice_repo),
                     models=StaticModelProvider({"actor": actor, "planner": planner}),
                     config=CodurConfig(critic=False, repair=False, max_turns=1, fixers=["agent"]))
        assert result.status is RunStatus.FAILED, (kind, result.status, result.reason)
        assert result.files_changed == [] and result.verification["signature"] == "no change"
        assert "nothing was changed" in result.verification["reasoning"]
