"""Graph routing with the scripted model: every branch of the graph reached on a real repo."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage
from pydantic import ValidationError

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.core.events import state_entered
from codur.llm import ScriptedChatModel, StaticModelProvider
from tests.repair.conftest import write_repo

FIX_OLD = "if quantity > BULK_THRESHOLD:"
FIX_NEW = "if quantity >= BULK_THRESHOLD:"


def call(name: str, **arguments) -> str:
    """A tool call the way the local model writes it: a fenced JSON block in the content."""
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def fix_call() -> str:
    return call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW)


#: A configured planner answers the first plan too (seed 004's Plan), clear wording or not.
FIRST_PLAN = '{"task_type": "code_fix", "steps": ["read billing.py"]}'


def run_with(repo: Path, actor: list, *, planner: list | None = None, critic: list | None = None,
             task: str = "make the failing tests pass", **config):
    models = {"actor": ScriptedChatModel(replies=actor)}
    if planner is not None:
        models["planner"] = ScriptedChatModel(replies=planner)
    if critic is not None:
        models["critic"] = ScriptedChatModel(replies=critic)
    config.setdefault("critic", critic is not None)
    config.setdefault("repair", False)
    config.setdefault("retry_base_delay_s", 0)
    result = run(RunRequest(task=task, repo=repo), models=StaticModelProvider(models),
                 config=CodurConfig(**config))
    return result, models


def test_success_in_one_turn(invoice_repo: Path):
    result, models = run_with(invoice_repo, [call("read_file", path="billing.py"), fix_call(), "Fixed."])
    assert result.status is RunStatus.SUCCESS and result.reason == "verified"
    assert result.nodes == ["initialize", "observe", "plan", "delegate", "execute", "verify", "review", "done"]
    assert f"-    {FIX_OLD}\n+    {FIX_NEW}" in result.diff
    assert result.files_changed == ["billing.py"]
    assert FIX_NEW in (invoice_repo / "billing.py").read_text()
    # The agent saw the failing tests before acting, and the tools it was bound to.
    first_prompt = models["actor"].calls[0]
    assert "test_discount_starts_at_threshold" in first_prompt[1].content
    assert {t.name for t in models["actor"].bound_tools} >= {"read_file", "replace_in_file", "run_pytest"}


def test_native_tool_calls_are_used(invoice_repo: Path):
    native = AIMessage(content="", tool_calls=[{"name": "replace_in_file", "id": "c1",
                                                "args": {"path": "billing.py", "old": FIX_OLD, "new": FIX_NEW}}])
    result, _ = run_with(invoice_repo, [native, "done"])
    assert result.status is RunStatus.SUCCESS


def test_retry_after_failed_verification(invoice_repo: Path):
    wrong = call("replace_in_file", path="billing.py", old="10% when at least", new="10% from")
    result, models = run_with(invoice_repo, [wrong, "Reworded the docstring.", fix_call(), "Fixed."],
                              critic=['{"passed": false, "strategy": "tests", '
                                      '"reasoning": "the threshold is exclusive", "suggestions": ["use >="]}'])
    assert result.status is RunStatus.SUCCESS
    assert result.nodes.count("delegate") == 2 and result.nodes.count("plan") == 1
    assert result.turns == 2
    retry_prompt = models["actor"].calls[2][1].content
    assert "did not pass verification" in retry_prompt and "use >=" in retry_prompt
    assert result.verification["passed"] and result.verification["strategy"] in ("tests", "hybrid")


def test_replan_when_the_turn_changed_nothing(invoice_repo: Path):
    planner = [FIRST_PLAN,
               '{"task_type": "code_fix", "agent": "coder", "steps": ["read billing.py", "fix the comparison"]}']
    result, models = run_with(invoice_repo, [call("read_file", path="billing.py"), "I looked.", fix_call(), "ok"],
                              planner=planner)
    assert result.status is RunStatus.SUCCESS
    assert result.nodes.count("plan") == 2
    assert len(models["planner"].calls) == 2  # a configured planner answers the first plan and the replan
    assert "1. read billing.py" in models["actor"].calls[2][1].content


def test_max_turns_ends_failed(invoice_repo: Path):
    wrong = call("replace_in_file", path="billing.py", old="VAT_PERCENT = 20", new="VAT_PERCENT = 21")
    result, _ = run_with(invoice_repo, [wrong, "done"], max_turns=1)
    assert result.status is RunStatus.FAILED and result.reason == "max_turns"
    assert result.nodes[-2:] == ["review", "done"]


def test_same_failure_twice_is_stuck(invoice_repo: Path):
    wrong1 = call("replace_in_file", path="billing.py", old="VAT_PERCENT = 20", new="VAT_PERCENT = 20  # vat")
    wrong2 = call("replace_in_file", path="billing.py", old="# vat", new="# VAT")
    result, _ = run_with(invoice_repo, [wrong1, "done", wrong2, "done"], max_turns=5)
    assert result.status is RunStatus.FAILED and result.reason == "stuck"
    assert result.turns == 2


def test_fix_task_is_patched_by_mutation_before_the_agent(invoice_repo: Path):
    """A fix task with failing tests goes from plan to the candidate-patch pipeline; the
    mutation search finds the `>=` within its time box, so no model is asked at all."""
    result, models = run_with(invoice_repo, ["never played"], repair=True, repair_workers=2,
                              mutation_time_box_s=60)
    assert result.nodes == ["initialize", "observe", "plan", "patch", "verify", "review", "done"]
    assert result.status is RunStatus.SUCCESS and result.reason == "verified"
    assert models["actor"].calls == []  # neither the sampler nor the agent
    assert FIX_NEW in (invoice_repo / "billing.py").read_text()
    assert result.diff.count("\n+    ") == 1 and f"-    {FIX_OLD}\n+    {FIX_NEW}" in result.diff
    assert result.files_changed == ["billing.py"]
    assert result.summary.startswith("fixed by mutation search: ")
    events = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
    done = [e for e in events if e["event_type"] == "patch.done"]
    assert len(done) == 1 and done[0]["status"] == "patched" and done[0]["source"] == "mutation"
    assert done[0]["llm_calls"] == 0
    # the patch went through the ToolExecutor like any edit
    assert any(e["event_type"] == "tool.call" and e["tool"] == "apply_patch" for e in events)


def test_token_budget_exceeded(invoice_repo: Path):
    result, _ = run_with(invoice_repo, [call("read_file", path="billing.py"), fix_call(), "ok"], token_budget=10)
    assert result.status is RunStatus.BUDGET_EXCEEDED
    # The agent's loop stopped after its first call; verify was entered, tripped the
    # budget check before its body ran (no verdict), and the guard routed to done.
    assert result.nodes[-3:] == ["execute", "verify", "done"]
    assert result.verification == {} and result.llm_calls == 1


def test_timeout(invoice_repo: Path):
    result, models = run_with(invoice_repo, ["unused"], timeout_s=0)
    assert result.status is RunStatus.TIMEOUT
    assert models["actor"].calls == []


def test_malformed_tool_call_is_fed_back(invoice_repo: Path):
    bad = '```json\n{"name": "replace_in_file", "arguments": {"path": "billing.py",\n```'
    result, models = run_with(invoice_repo, [bad, fix_call(), "done"])
    assert result.status is RunStatus.SUCCESS
    assert "could not" in models["actor"].calls[1][-1].content.lower()


def test_model_error_is_retried_by_the_executor(invoice_repo: Path):
    result, _ = run_with(invoice_repo, [RuntimeError("server said 500"), fix_call(), "done"], retry_base_delay_s=0)
    assert result.status is RunStatus.SUCCESS


def test_profile_fallback_after_retries(invoice_repo: Path):
    broken = ScriptedChatModel(replies=[RuntimeError("500")] * 3)
    good = ScriptedChatModel(replies=[fix_call(), "done"])
    result = run(RunRequest(task="make the failing tests pass", repo=invoice_repo),
                 models=StaticModelProvider({"actor": [broken, good]}),
                 config=CodurConfig(critic=False, repair=False, retry_base_delay_s=0, max_retries=2))
    assert result.status is RunStatus.SUCCESS
    assert len(broken.calls) == 3 and len(good.calls) == 2


def test_question_is_answered_read_only(invoice_repo: Path):
    result, models = run_with(invoice_repo, [call("read_file", path="billing.py"),
                                             "The VAT rate is set by VAT_PERCENT in billing.py."],
                              task="where is the VAT rate configured?")
    assert result.status is RunStatus.SUCCESS and result.verification["strategy"] == "answer"
    assert result.reason == "answered"
    assert not {t.name for t in models["actor"].bound_tools} & {"write_file", "replace_in_file"}
    assert result.diff == ""


def test_trace_and_result_on_disk(invoice_repo: Path):
    result, _ = run_with(invoice_repo, [fix_call(), "done"])
    events = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
    states = [e for e in events if state_entered(e)]
    assert [e["node"] for e in states] == result.nodes
    assert {e["state"] for e in states} == {"initialize", "observe", "plan", "act", "verify", "done"}
    assert all(e["run_id"] == result.run_id for e in states)
    assert events[0]["event_type"] == "run.start" and events[-1]["event_type"] == "run.end"
    assert any(e["event_type"] == "tool.call" and e["tool"] == "replace_in_file" for e in events)
    assert (result.run_dir / "diff.patch").read_text() == result.diff
    assert json.loads((result.run_dir / "result.json").read_text())["status"] == "success"


def test_dry_run_calls_no_model(invoice_repo: Path):
    actor = ScriptedChatModel(replies=[])
    result = run(RunRequest(task="make the failing tests pass", repo=invoice_repo, dry_run=True),
                 models=StaticModelProvider({"actor": actor}), config=CodurConfig(critic=False, repair=False))
    assert actor.calls == [] and result.diff == ""
    assert result.status is RunStatus.DRY_RUN


@pytest.mark.parametrize("task,repo,message", [("", ".", "task is empty"), ("fix", "/no/such/dir", "does not exist")])
def test_bad_requests_are_refused(task, repo, message):
    with pytest.raises(ValidationError, match=message):
        RunRequest(task=task, repo=repo)


def test_repeated_calls_are_refused_and_end_the_turn(invoice_repo: Path):
    read = call("read_file", path="test_billing.py")
    result, models = run_with(invoice_repo, [read, read, read, fix_call(), "done"], max_turns=2,
                              planner=[FIRST_PLAN, '{"steps": ["edit billing.py"]}'])
    first_turn = models["actor"].calls[:3]
    assert len(first_turn) == 3
    assert "already called read_file" in first_turn[2][-1].content
    assert result.status is RunStatus.SUCCESS and result.turns == 2


def test_replan_keeps_the_task_type(invoice_repo: Path):
    planner = [FIRST_PLAN, '{"task_type": "code_validation", "agent": "coder", "steps": ["run the tests"]}']
    result, models = run_with(invoice_repo, ["Nothing to do.", fix_call(), "done"], planner=planner)
    assert result.nodes.count("plan") == 2 and result.status is RunStatus.SUCCESS
    assert "replace_in_file" in models["actor"].calls[1][0].content  # the edit tools are still listed


SAMPLE_FIX = ("```python\ndef bulk_discount_percent(quantity: int) -> int:\n"
              "    if quantity >= BULK_THRESHOLD:\n        return BULK_DISCOUNT_PERCENT\n    return 0\n```")


def test_model_sample_patches_when_mutation_is_off(invoice_repo: Path):
    """Without the mutation fixer the model writes the suspicious function whole; its
    sample passes the tests, is applied, and verify confirms it. The agent is not run."""
    result, models = run_with(invoice_repo, [SAMPLE_FIX, "never played"], repair=True, repair_workers=2,
                              fixers=["sampling", "agent"], samples=1)
    assert result.nodes[-5:] == ["plan", "patch", "verify", "review", "done"]
    assert "delegate" not in result.nodes
    assert result.status is RunStatus.SUCCESS, result.reason
    assert len(models["actor"].calls) == 1 and models["actor"].remaining == 1
    sampled = models["actor"].calls[0]
    assert "Write the corrected `bulk_discount_percent` in full." in sampled[-1].content
    assert "test_discount_starts_at_threshold" in sampled[-1].content  # the failures are in the prompt
    # the docstring the sample dropped is kept: the diff shows the change only
    assert result.diff.count("\n+    ") == 1 and f"+    {FIX_NEW}" in result.diff
    assert result.summary.startswith("fixed by model patch sample: ")


SHOP = {
    "shop.py": (
        "def bulk_price(quantity, unit):\n"
        '    """Price of quantity items: 10% off from 10 items."""\n'
        "    gross = quantity + unit\n"
        "    if quantity > 10:\n"
        "        return gross * 0.9\n"
        "    return gross\n"),
    "test_shop.py": (
        "from shop import bulk_price\n\n\n"
        "def test_small_order():\n    assert bulk_price(2, 3) == 6\n\n\n"
        "def test_big_order():\n    assert bulk_price(20, 1) == 18.0\n\n\n"
        "def test_discount_starts_at_ten():\n    assert bulk_price(10, 1) == 9.0\n\n\n"
        "def test_two_of_two():\n    assert bulk_price(2, 2) == 4\n"),
    "pyproject.toml": '[project]\nname = "shop"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\npythonpath = ["."]\n',
}
#: fixes the `+` (2 of the 3 failing tests), leaves the `>`: a near miss
SHOP_NEAR = ("```python\ndef bulk_price(quantity, unit):\n    gross = quantity * unit\n    if quantity > 10:\n"
             "        return gross * 0.9\n    return gross\n```")


def test_no_plausible_patch_hands_over_to_the_agent_with_the_near_miss(tmp_path: Path):
    repo = write_repo(tmp_path / "shop", SHOP)
    agent_fix = call("replace_in_file", path="shop.py", old="gross = quantity + unit\n    if quantity > 10:",
                     new="gross = quantity * unit\n    if quantity >= 10:")
    result, models = run_with(repo, [SHOP_NEAR, agent_fix, "Fixed."], repair=True, repair_workers=2,
                              fixers=["sampling", "agent"], samples=1)
    assert result.nodes == ["initialize", "observe", "plan", "patch", "delegate", "execute", "verify", "review",
                            "done"]
    assert result.status is RunStatus.SUCCESS, result.reason
    calls = models["actor"].calls
    assert len(calls) == 3  # one sample, then the agent's two turns
    first_prompt = calls[1][1].content
    assert "A candidate fix made 2 of 3 failing tests pass without breaking the others" in first_prompt
    assert "-    gross = quantity + unit\n+    gross = quantity * unit" in first_prompt
    # the sample was not applied: the diff is the agent's edit alone
    assert "+    gross = quantity * unit\n+    if quantity >= 10:" in result.diff
    events = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
    assert [e["status"] for e in events if e["event_type"] == "patch.done"] == ["not_found"]


#: an agent turn that edits the docstring: it makes none of the failing tests pass
DOC_EDIT = call("replace_in_file", path="shop.py", old="10% off from 10 items.", new="10% off from ten items.")


#: a second wrong turn: a different failure (the discount changed too), still none of the failing tests pass
RATE_EDIT = call("replace_in_file", path="shop.py", old="return gross * 0.9", new="return gross * 0.8")
#: the right fix, written against the original code (a fresh retry starts from it)
SHOP_FIX = call("replace_in_file", path="shop.py", old="gross = quantity + unit\n    if quantity > 10:",
                new="gross = quantity * unit\n    if quantity >= 10:")


def trace(result, kind: str) -> list[dict]:
    events = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
    return [e for e in events if e["event_type"] == kind]


def test_a_turn_without_progress_gets_a_fresh_retry_from_the_original_code(tmp_path: Path):
    """Seed 003: "different error → retry with agent". The docstring edit fixed nothing: it is
    reverted, and the next turn, told what was tried, fixes the bug from the original code."""
    repo = write_repo(tmp_path / "shop", SHOP)
    result, models = run_with(repo, [SHOP_NEAR, DOC_EDIT, "Done.", SHOP_FIX, "Fixed."], repair=True,
                              repair_workers=2, fixers=["sampling", "agent"], samples=1)
    assert result.status is RunStatus.SUCCESS, result.reason
    assert result.nodes.count("delegate") == 2 and result.turns == 2
    text = (repo / "shop.py").read_text()
    assert "10% off from 10 items." in text and "gross = quantity * unit" in text  # the doc edit was put back
    assert "ten items" not in result.diff
    retry_prompt = models["actor"].calls[3][1].content
    assert "An earlier attempt made none of the failing tests pass and was reverted" in retry_prompt
    assert "+    \"\"\"Price of quantity items: 10% off from ten items.\"\"\"" in retry_prompt  # what was tried
    assert "Test results before any change" in retry_prompt  # the files are as they were: so is the report
    [retry] = trace(result, "agent.retry")
    assert retry["strategy"] == "fresh_retry" and retry["turn"] == 2 and retry["reverted"] == ["shop.py"]


def test_the_give_up_rule_counts_the_fresh_retries(tmp_path: Path):
    repo = write_repo(tmp_path / "shop", SHOP)
    result, models = run_with(repo, [SHOP_NEAR, DOC_EDIT, "Done.", RATE_EDIT, "Done.", "never played"],
                              repair=True, repair_workers=2, fixers=["sampling", "agent"], samples=1, max_turns=5)
    assert result.status is RunStatus.FAILED and result.reason == "no_progress"
    assert result.nodes.count("delegate") == 2 and result.nodes[-2:] == ["review", "done"]
    assert models["actor"].remaining == 1
    assert result.metadata["stop"]["turns_without_progress"] == 2
    assert (repo / "shop.py").read_text() == SHOP["shop.py"]  # a failed run leaves the files as they were


def test_the_same_failure_after_a_fresh_retry_is_stuck(tmp_path: Path):
    """Seed 003: "same error repeats: agent is stuck, exit"."""
    repo = write_repo(tmp_path / "shop", SHOP)
    result, _ = run_with(repo, [SHOP_NEAR, DOC_EDIT, "Done.", "Done."], repair=True, repair_workers=2,
                         fixers=["sampling", "agent"], samples=1, no_progress_turns=5)
    assert result.status is RunStatus.FAILED and result.reason == "stuck"
    assert result.nodes.count("delegate") == 2


def test_without_stop_without_progress_the_turns_go_on_with_the_edits_kept(tmp_path: Path):
    repo = write_repo(tmp_path / "shop", SHOP)
    result, models = run_with(repo, [SHOP_NEAR, DOC_EDIT, "Done.", "Done."], repair=True, repair_workers=2,
                              fixers=["sampling", "agent"], samples=1, stop_without_progress=False)
    assert result.status is RunStatus.FAILED and result.reason == "stuck"  # the same failure twice
    assert result.nodes.count("delegate") == 2 and trace(result, "agent.retry") == []
    assert "did not pass verification" in models["actor"].calls[3][-1].content  # the edits are kept: a plain retry


def test_no_plausible_patch_and_no_agent_ends_failed(invoice_repo: Path):
    wrong = ("```python\ndef bulk_discount_percent(quantity: int) -> int:\n    return BULK_DISCOUNT_PERCENT\n```")
    result, models = run_with(invoice_repo, [wrong, "never played"], repair=True, repair_workers=2,
                              fixers=["sampling"], samples=1)
    assert result.nodes[-3:] == ["plan", "patch", "done"]
    assert result.status is RunStatus.FAILED and result.reason == "no_plausible_patch"
    assert len(models["actor"].calls) == 1 and result.diff == ""
    assert FIX_OLD in (invoice_repo / "billing.py").read_text()  # the wrong sample was not applied


def test_ctrl_c_cancels_after_the_current_call(invoice_repo: Path):
    import os
    import signal

    def interrupt_then_fix(_messages):
        os.kill(os.getpid(), signal.SIGINT)  # the user presses Ctrl-C while the model answers
        time.sleep(0.5)  # ... which takes a while: the main thread handles the signal meanwhile
        return fix_call()

    # started under nohup or `&`, SIGINT is ignored: this test sets the default handler itself
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        result, models = run_with(invoice_repo, [interrupt_then_fix, "never played"])
        handler_after = signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert result.status is RunStatus.CANCELLED and result.reason == "cancelled"
    assert len(models["actor"].calls) == 1 and result.nodes[-1] == "done"
    # the edit the model asked for after Ctrl-C never started: no tool call runs once cancelled
    assert result.diff == "" and FIX_OLD in (invoice_repo / "billing.py").read_text()
    assert (result.run_dir / "result.json").exists()
    assert handler_after is signal.default_int_handler  # handlers restored


def test_rate_limited_model_is_not_retried_and_the_run_replans(invoice_repo: Path):
    """A 429 from the endpoint: the AgentRunner does not retry it (waiting seconds will not help),
    the turn is reported failed with the quota state, and review replans."""
    import httpx
    import openai

    body = {"message": "Rate limit reached", "code": "rate_limit_exceeded"}
    response = httpx.Response(429, headers={"retry-after": "20"}, json={"error": body},
                              request=httpx.Request("POST", "http://127.0.0.1/v1/chat/completions"))
    limited = openai.RateLimitError("Error code: 429", response=response, body=body)
    result, models = run_with(invoice_repo, [limited, fix_call(), "done"],
                              planner=[FIRST_PLAN, '{"steps": ["fix the threshold comparison"]}'])
    events = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
    assert result.status is RunStatus.SUCCESS
    assert result.nodes.count("plan") == 2  # agent failed → replan → second turn fixed it
    assert len(models["actor"].calls) == 3  # 1 (429, not retried) + 2 in the second turn
    outcomes = [e for e in events if e["event_type"] == "agent.outcome"]
    assert outcomes[0]["status"] == "failed" and outcomes[0]["quota"] == "rate_limited"
    assert outcomes[0]["attempts"] == 1
    assert outcomes[1]["status"] == "completed" and outcomes[1]["edits"] == 1


def test_a_patch_search_that_cannot_copy_the_repo_says_why_as_the_reason(invoice_repo: Path, monkeypatch):
    """Issue 21, item 6: a copy or setup error of the workers is the run's reason, not a bare
    no_plausible_patch."""
    import shutil

    from codur.validate import worker as worker_module

    def full_disk(src, dst, **kwargs):
        raise shutil.Error([(f"{src}/billing.py", str(dst), "[Errno 28] No space left on device")])

    monkeypatch.setattr(worker_module.shutil, "copytree", full_disk)
    result, _ = run_with(invoice_repo, ["never played"], repair=True, repair_workers=1, fixers=["mutation"])
    assert result.status is RunStatus.FAILED
    assert result.reason.startswith("patch_error: could not run the tests: cannot copy the repo for the test "
                                    "workers: ") and result.reason.endswith("No space left on device"), result.reason


RISKY_SAMPLE = ("```python\ndef bulk_discount_percent(quantity: int) -> int:\n"
                "    import subprocess\n    subprocess.run(['true'])\n"
                "    if quantity >= BULK_THRESHOLD:\n        return BULK_DISCOUNT_PERCENT\n    return 0\n```")


def test_a_model_sample_adding_a_process_call_is_not_written_unless_allowed(invoice_repo: Path):
    """Issue 21, item 3: the sample fixes the tests but adds subprocess: flagged, not written;
    the setting allow_risky_patches writes it."""
    original = (invoice_repo / "billing.py").read_text()
    result, _ = run_with(invoice_repo, [RISKY_SAMPLE], repair=True, repair_workers=2, fixers=["sampling"], samples=1)
    assert result.status is RunStatus.FAILED and "risky code" in result.reason, result.reason
    assert (invoice_repo / "billing.py").read_text() == original and result.diff == ""
    assert result.metadata.risky_patches == [{"path": "billing.py", "approved": False, "findings": [
        "process: import subprocess", "process: subprocess.run(...)"]}]
    allowed, _ = run_with(invoice_repo, [RISKY_SAMPLE], repair=True, repair_workers=2, fixers=["sampling"],
                          samples=1, allow_risky_patches=True)
    assert allowed.status is RunStatus.SUCCESS and "subprocess.run(['true'])" in allowed.diff
    assert [r["approved"] for r in allowed.metadata.risky_patches] == [True]


def test_a_state_that_ends_the_run_says_so_in_its_exit_event(tmp_path: Path):
    """engine.state exit events carry the state's outcome: a request with no task ends at
    initialize, whose exit says error; done leaves with the run's final status."""
    from codur.graph.builder import build_graph
    from codur.graph.context import build_context

    events: list[dict] = []
    graph = build_graph()
    for chunk in graph.stream({"task": " ", "repo": str(tmp_path)}, {"configurable": {"thread_id": "t"}},
                              context=build_context(tmp_path, CodurConfig(critic=False)), stream_mode="custom"):
        events.append(chunk)
    exits = [(e["node"], e["status"]) for e in events if e["event_type"] == "engine.state" and e["phase"] == "exit"]
    assert exits == [("initialize", "error"), ("done", "error")]
