"""The engine contract: LocalEngine / EngineComponents / RunRequest → RunResult, its termination
reasons, its event envelope, cancellation from Python, session memory and resume."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from codur import CodurConfig
from codur.engine import (
    EngineComponents,
    InMemorySessionStore,
    LocalEngine,
    MockProvider,
    RunRequest,
    RunStatus,
    SqliteSessionStore,
)
from codur.engine.runner import arun, run
from codur.memory import SessionEntry, recall

ROOT = Path(__file__).resolve().parents[2]
FIX_OLD, FIX_NEW = "if quantity > BULK_THRESHOLD:", "if quantity >= BULK_THRESHOLD:"


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def fix_call() -> str:
    return call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW)


def wrong_call() -> str:
    return call("replace_in_file", path="billing.py", old="VAT_PERCENT = 20", new="VAT_PERCENT = 21")


def config(**overrides) -> CodurConfig:
    return CodurConfig(**{"critic": False, "repair": False, "retry_base_delay_s": 0, **overrides})


def test_the_documented_minimal_example_runs_verbatim(tmp_path: Path):
    """AGENTIC_LOGIC.md's example, copied byte for byte, in an empty folder (the repo is the cwd)."""
    text = (ROOT / "AGENTIC_LOGIC.md").read_text()
    block = re.search(r"## The engine contract.*?```python\n(.*?)```", text, re.S).group(1)
    (tmp_path / "example.py").write_text(block)
    done = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["success answered", "Hello! Ask me anything about this repository."]
    assert len(list((tmp_path / ".codur" / "runs").glob("*/result.json"))) == 1


@pytest.mark.parametrize("limits,replies,status,reason,figures", [
    ({"max_turns": 1}, [wrong_call(), "done"], RunStatus.FAILED, "max_turns", {"turns": 1, "max_turns": 1}),
    ({"timeout_s": 0}, ["unused"], RunStatus.TIMEOUT, "timeout", {"timeout_s": 0}),
    ({"token_budget": 10}, [call("read_file", path="billing.py"), fix_call(), "ok"], RunStatus.BUDGET_EXCEEDED,
     "token_budget", {"token_budget": 10}),
])
def test_each_limit_ends_with_the_contract_reason_and_figures_in_metadata(invoice_repo, limits, replies, status,
                                                                          reason, figures):
    result = run(RunRequest(input="make the failing tests pass", repo=invoice_repo), models=MockProvider(replies),
                 config=config(**limits))
    assert (result.status, result.reason) == (status, reason)
    assert figures.items() <= result.metadata.stop.items()
    if reason == "token_budget":
        assert result.metadata.stop["tokens"] > 10 == result.metadata.stop["token_budget"]


def test_cancel_event_set_from_another_thread_ends_the_run_cancelled(invoice_repo: Path):
    cancel = threading.Event()

    def slow_reply(_messages):
        threading.Timer(0.05, cancel.set).start()  # the user cancels while the model call runs
        time.sleep(0.3)
        return fix_call()

    provider = MockProvider([slow_reply, "never played"])
    result = run(RunRequest(input="make the failing tests pass", repo=invoice_repo, cancel_event=cancel),
                 models=provider, config=config())
    assert (result.status, result.reason) == (RunStatus.CANCELLED, "cancelled")
    assert len(provider.model().calls) == 1  # the call in flight was the last
    assert FIX_OLD in (invoice_repo / "billing.py").read_text()  # its tool call never started
    assert json.loads((result.run_dir / "result.json").read_text())["status"] == "cancelled"


def test_cancelling_the_execute_task_cancels_the_run_and_waits_for_its_result(invoice_repo: Path):
    started = threading.Event()

    def slow_reply(_messages):
        started.set()
        time.sleep(1.0)
        return fix_call()

    events: list[dict] = []
    components = EngineComponents(models=MockProvider([slow_reply, "never played"]), config=config(),
                                  emitter=events.append)

    async def main() -> None:
        task = asyncio.create_task(LocalEngine().execute(
            RunRequest(input="make the failing tests pass", repo=invoice_repo), components))
        while not started.is_set():
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    # CancelledError reached the caller only after the run wrote its result, cancelled
    assert events[-1]["event_type"] == "run.end" and events[-1]["status"] == "cancelled"
    results = list((invoice_repo / ".codur" / "runs").glob("*/result.json"))
    assert [json.loads(p.read_text())["status"] for p in results] == ["cancelled"]
    assert FIX_OLD in (invoice_repo / "billing.py").read_text()


def test_arun_returns_the_same_result_as_run(invoice_repo: Path):
    result = asyncio.run(arun(RunRequest(task="make the failing tests pass", repo=invoice_repo),
                              models=MockProvider([fix_call(), "Fixed."]), config=config()))
    assert result.ok and result.reason == "verified" and result.output_text == "Fixed."


def test_event_sequence_of_a_successful_run(invoice_repo: Path):
    events: list[dict] = []
    components = EngineComponents(models=MockProvider([call("read_file", path="billing.py"), fix_call(), "Fixed."]),
                                  config=config(), emitter=events.append)
    result = LocalEngine().run(RunRequest(input="make the failing tests pass", repo=invoice_repo), components)
    assert result.ok and result.metadata.fixer == "agent"
    assert all({"event_type", "run_id", "ts"} <= e.keys() and e["run_id"] == result.run_id for e in events)
    assert [e["ts"] for e in events] == sorted(e["ts"] for e in events)
    assert events[0]["event_type"] == "run.start" and events[-1]["event_type"] == "run.end"
    states = [(e["state"], e["node"], e["phase"], e["status"]) for e in events if e["event_type"] == "engine.state"]
    nodes = [("initialize", "initialize"), ("observe", "observe"), ("plan", "plan"), ("act", "delegate"),
             ("act", "execute"), ("verify", "verify"), ("verify", "review"), ("done", "done")]
    # each state: entered while the run is running, left with its outcome (the document's
    # {"state": "plan", "status": "success"}); done enters with the run's status and leaves with it
    assert states == [s for state, node in nodes for s in (
        (state, node, "enter", "success" if node == "done" else "running"), (state, node, "exit", "success"))]
    assert all(e["seconds"] >= 0 for e in events if e.get("phase") == "exit")
    models = [e for e in events if e["event_type"] == "model.call"]
    assert [m["role"] for m in models] == ["actor"] * 3
    assert all(m["input_tokens"] > 0 and m["output_tokens"] > 0 and m["seconds"] >= 0 for m in models)
    tools = [(e["tool"], e["args"].get("caller")) for e in events if e["event_type"] == "tool.call"]
    # the repo's tests run through the ToolExecutor's test tool too (observe's run and verify's)
    assert tools == [("run_pytest", "observe"), ("read_file", None), ("replace_in_file", None),
                     ("run_pytest", "verify")]
    usage = result.metadata.usage
    assert usage["llm_calls"] == 3 == result.llm_calls
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] == result.tokens
    assert result.metadata.trace_path == result.run_dir / "trace.jsonl"
    tests = [e for e in events if e["event_type"] == "tests.run"]
    assert len(tests) == 2  # observe's run and verify's
    assert result.metadata.timings["tests_s"] == pytest.approx(sum(e["duration_s"] for e in tests), abs=0.01)
    assert result.metadata.timings["tests_s"] > 0
    on_disk = [json.loads(line) for line in result.metadata.trace_path.read_text().splitlines()]
    assert [e["event_type"] for e in on_disk] == [e["event_type"] for e in events]


def test_session_memory_reaches_the_follow_up_run(invoice_repo: Path):
    store = InMemorySessionStore()
    first = LocalEngine().run(
        RunRequest(input="make the failing tests pass", repo=invoice_repo, session_id="s1"),
        EngineComponents(models=MockProvider([fix_call(), "Fixed the bulk threshold."]), config=config(),
                         session_store=store))
    assert first.ok
    plan = '{"task_type": "code_generation", "steps": []}'
    follow = MockProvider(["Nothing else to do."], roles={"planner": [plan]})
    LocalEngine().run(RunRequest(input="now also handle negative quantities", repo=invoice_repo, session_id="s1"),
                      EngineComponents(models=follow, config=config(max_turns=1), session_store=store))
    assert "Earlier in this session" in follow.model("planner").calls[0][-1].content
    prompt = follow.model().calls[0][-1].content
    assert "Earlier in this session" in prompt
    assert "'make the failing tests pass' ended success (verified)" in prompt
    assert f"+    {FIX_NEW}" in prompt and "files changed: billing.py" in prompt
    other = MockProvider(["Nothing."], roles={"planner": [plan]})
    LocalEngine().run(RunRequest(input="now also handle negative quantities", repo=invoice_repo, session_id="s2"),
                      EngineComponents(models=other, config=config(max_turns=1), session_store=store))
    assert "Earlier in this session" not in other.model().calls[0][-1].content


def test_codur_run_keeps_sessions_in_the_repo_sqlite_store(invoice_repo: Path):
    run(RunRequest(input="make the failing tests pass", repo=invoice_repo, session_id="work"),
        models=MockProvider([fix_call(), "Fixed."]), config=config())
    store = SqliteSessionStore.for_repo(invoice_repo)
    # Initialize recorded the start, the engine the end; recall keeps one entry per run, the latest
    assert [h.status for h in store.history("work")] == ["running", "success"]
    assert [(h.task, h.status, h.files_changed) for h in recall(store, "work")] == [
        ("make the failing tests pass", "success", ["billing.py"])]


def test_a_run_that_never_ended_is_remembered_as_unfinished(invoice_repo: Path):
    store = InMemorySessionStore()
    store.append("s", SessionEntry(run_id="r1", task="add a CSV export", status="running", reason="started"))
    plan = '{"task_type": "code_generation", "steps": []}'
    follow = MockProvider(["Nothing else to do."], roles={"planner": [plan]})
    result = LocalEngine().run(RunRequest(input="finish the CSV export", repo=invoice_repo, session_id="s"),
                               EngineComponents(models=follow, config=config(max_turns=1), session_store=store))
    assert "- run r1: 'add a CSV export' did not finish" in follow.model().calls[0][-1].content
    assert [e.run_id for e in recall(store, "s")] == ["r1", result.run_id]
    assert recall(store, "s", current_run=result.run_id)[0].status == "running"


def test_resume_continues_an_interrupted_run_from_its_last_completed_node(invoice_repo: Path):
    cancel = threading.Event()

    def interrupted(_messages):
        cancel.set()  # the run is interrupted during its first model call
        return fix_call()

    first = run(RunRequest(input="make the failing tests pass", repo=invoice_repo, cancel_event=cancel),
                models=MockProvider([interrupted]), config=config())
    assert first.status is RunStatus.CANCELLED and first.diff == ""
    # the resumed run verifies the unchanged repo, replans (the planner's turn), then fixes
    second = MockProvider([fix_call(), "Fixed."], roles={"planner": ['{"task_type": "code_fix", "steps": []}']})
    resumed = run(RunRequest(input="make the failing tests pass", repo=invoice_repo, run_id=first.run_id,
                             resume=True), models=second, config=config())
    assert resumed.ok and resumed.run_id == first.run_id and resumed.metadata.resumed_from
    # initialize, observe and plan ran once: the resumed run went on from execute's checkpoint
    assert resumed.nodes[:5] == ["initialize", "observe", "plan", "delegate", "execute"]
    assert resumed.nodes.count("initialize") == 1 and resumed.nodes.count("observe") == 1
    assert f"+    {FIX_NEW}" in resumed.diff
    trace = [json.loads(line) for line in (resumed.run_dir / "trace.jsonl").read_text().splitlines()]
    assert [e["resume"] for e in trace if e["event_type"] == "run.start"] == [False, True]
    with pytest.raises(ValueError, match="no checkpoint"):  # a finished run's checkpoints are dropped
        run(RunRequest(input="x", repo=invoice_repo, run_id=first.run_id, resume=True), models=MockProvider([]),
            config=config())


def test_resume_of_an_unknown_run_is_a_clear_error(invoice_repo: Path):
    with pytest.raises(ValueError, match="no checkpoint to resume from"):
        run(RunRequest(input="x", repo=invoice_repo, run_id="no-such-run", resume=True),
            models=MockProvider([]), config=config())


def test_resume_needs_a_run_id(invoice_repo: Path):
    with pytest.raises(ValueError, match="resume needs the run_id"):
        RunRequest(input="x", repo=invoice_repo, resume=True)


def test_rlm_tool_runs_on_the_run_model_and_is_charged_to_the_run_budget(invoice_repo: Path):
    """The agent asks ask_codebase; the RLM's model call is the run's (recorded in the run's ledger)."""
    replies = [call("ask_codebase", question="Where is the VAT rate set?", paths=["billing.py"]),
               "FINAL(VAT_PERCENT in billing.py)",  # the RLM engine's own turn, on the run's model
               "The VAT rate is VAT_PERCENT in billing.py."]
    provider = MockProvider(replies)
    result = run(RunRequest(input="where is the VAT rate configured?", repo=invoice_repo), models=provider,
                 config=config())
    assert result.ok and result.reason == "answered", result.reason
    # billing.py fits the model's window: the RLM asks the model directly (issue 40, item 4), on the run's model
    rlm_calls = [c for c in provider.model().calls if "Answer the task directly" in c[0].content
                 and "=== billing.py ===" in c[0].content]
    assert len(rlm_calls) == 1
    assert result.metadata.usage["llm_calls"] == 3  # the agent's two and the RLM's one
    # and a run whose budget the RLM spends ends on it
    spent = run(RunRequest(input="where is the VAT rate configured?", repo=invoice_repo, token_budget=2500),
                models=MockProvider(replies), config=config())
    assert spent.status is RunStatus.BUDGET_EXCEEDED and spent.metadata.stop["tokens"] > 2500


def test_mapping_of_models_by_role_falls_back_to_the_actor(invoice_repo: Path):
    actor = MockProvider([fix_call(), "Fixed."]).model()
    result = LocalEngine(config()).run(RunRequest(input="make the failing tests pass", repo=invoice_repo),
                                       EngineComponents(models={"actor": actor}))
    assert result.ok and len(actor.calls) == 2
