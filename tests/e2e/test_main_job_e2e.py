"""The main job end to end with the real embedded model (Qwen2.5-Coder-1.5B via xllamacpp).

Asserts flow and format, not the model's cleverness: the node sequence, a tool call
parsed from the model's content and really executed, a real verdict, and the run's
files on disk. A success is welcome but not required of a 1.5B model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.core.events import state_entered

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module", autouse=True)
def _model(local_model_installed):
    """The real embedded model (tests/e2e/conftest.py)."""


def test_main_job_on_invoice_example(invoice_repo: Path):
    config = CodurConfig(max_turns=2, max_iterations=4, repair=False, timeout_s=900)
    events: list[dict] = []
    result = run(RunRequest(task="make the failing tests pass", repo=invoice_repo), config=config,
                 on_event=events.append)

    assert result.status in (RunStatus.SUCCESS, RunStatus.FAILED), result.reason
    nodes = result.nodes
    assert nodes[:7] == ["initialize", "observe", "plan", "delegate", "execute", "verify", "review"]
    assert nodes[-1] == "done"

    replies = [e for e in events if e["event_type"] == "agent.reply"]
    parsed = [e for e in replies if e["source"] == "content" and e["tool_calls"]]
    assert parsed, f"no tool call parsed from the model's content: {[r['text'][:120] for r in replies]}"
    # the agent's calls (observe's and verify's test runs go through the test tool too, with a caller)
    tool_events = [e for e in events if e["event_type"] == "tool.call" and "caller" not in (e.get("args") or {})]
    assert tool_events and tool_events[0]["tool"] == parsed[0]["tool_calls"][0]

    verdict = result.verification
    assert verdict["strategy"] in ("tests", "hybrid")
    assert verdict["evidence"][0]["command"] == "pytest" and "pytest:" in verdict["evidence"][0]["output"]
    assert verdict["passed"] == (result.status is RunStatus.SUCCESS)

    run_dir = result.run_dir
    trace = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    assert [e["node"] for e in trace if state_entered(e)] == nodes
    assert json.loads((run_dir / "result.json").read_text())["status"] == result.status.value
    assert (run_dir / "diff.patch").read_text() == result.diff
    assert result.llm_calls >= 1 and result.tokens > 0 and result.cost_usd == 0.0
