"""An endpoint's verdict is asked for under a JSON-schema response_format when its reply held none."""

from __future__ import annotations

import json
from pathlib import Path

from codur.graph.verification.llm import ChangeUnderReview, run_model_verifier
from codur.llm.deadline import DeadlineChatOpenAI
from codur.tools.executor import ToolExecutor

VERDICT = {"passed": False, "strategy": "static", "evidence": [], "reasoning": "f is unused", "suggestions": ["call f"]}


def _model(base_url: str) -> DeadlineChatOpenAI:
    return DeadlineChatOpenAI(base_url=base_url, api_key="test", model="m", max_retries=0, timeout=10)


def test_a_reply_without_verdict_gets_one_structured_call(fault_server, faults, tmp_path: Path):
    (tmp_path / "lib.py").write_text("def f():\n    return 1\n")
    fault_server.play(faults.ok("I checked the code; it looks fine."), faults.ok(json.dumps(VERDICT)))
    run = run_model_verifier(_model(fault_server.base_url), ToolExecutor(tmp_path),
                             ChangeUnderReview(task="add f", task_type="code_generation", changed=["lib.py"]))
    assert run.verdict is not None and not run.verdict.passed and run.verdict.suggestions == ["call f"]
    assert run.llm_calls == 2 and run.tokens == 30
    first, second = (body for _, body in fault_server.requests)
    assert "response_format" not in first and first["tools"]  # the loop: tools bound, free reply
    fmt = second["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "ModelVerdict"
    assert set(fmt["json_schema"]["schema"]["properties"]) >= {"passed", "strategy", "evidence", "reasoning"}


def test_a_structured_reply_that_is_no_verdict_leaves_none(fault_server, faults, tmp_path: Path):
    (tmp_path / "lib.py").write_text("def f():\n    return 1\n")
    fault_server.play(faults.ok("fine"), faults.ok('{"passed": "maybe"}'))
    run = run_model_verifier(_model(fault_server.base_url), ToolExecutor(tmp_path),
                             ChangeUnderReview(task="add f", task_type="code_generation", changed=["lib.py"]))
    assert run.verdict is None and "not a verdict" in run.problem
    assert "the verdict call failed: ValidationError" in run.problem
    assert run.llm_calls == 2
