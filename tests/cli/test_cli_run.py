"""``codur run`` end to end with scripted models: progress lines, summary, modes, safe modes, flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codur.engine.contracts import RunResult, RunStatus

FIX_OLD = "if quantity > BULK_THRESHOLD:"
FIX_NEW = "if quantity >= BULK_THRESHOLD:"


def call(name: str, **arguments) -> str:
    """A tool call the way the local model writes it: a fenced JSON block in the content."""
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def fix_call() -> str:
    return call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW)

TASK = "make the failing tests pass"


def test_progress_and_summary_of_a_fixing_run(invoice_repo: Path, scripted, invoke):
    scripted([call("read_file", path="billing.py"), fix_call(), "Fixed."])
    res = invoke(TASK, "--repo", str(invoice_repo))
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "▶ delegate" in out and "▶ verify" in out  # engine state and node
    assert "↳ read_file(path='billing.py') ok" in out and "↳ replace_in_file(path='billing.py') ok" in out
    assert "status: success  reason: verified" in out
    assert "files changed: billing.py" in out
    assert f"-    {FIX_OLD}\n+    {FIX_NEW}" in out  # the whole diff, uncoloured when piped
    assert "trace: " + str(invoice_repo / ".codur" / "runs") in out
    assert "fixed by: agent" in out
    assert "time " in out and " model " in out and " tools " in out and " tests " in out and " repair " in out
    assert "\x1b[" not in out  # no colour when not a terminal


def test_quiet_prints_the_summary_only(invoice_repo: Path, scripted, invoke):
    scripted([fix_call(), "Fixed."])
    res = invoke(TASK, "--repo", str(invoice_repo), "--quiet")
    assert res.exit_code == 0
    assert "▶" not in res.stdout and "↳" not in res.stdout and "codur ·" not in res.stdout
    assert res.stdout.lstrip().startswith("status: success")


def test_verbose_shows_the_models_replies(invoice_repo: Path, scripted, invoke):
    scripted([fix_call(), "All tests pass now, I changed > to >=."])
    plain = invoke(TASK, "--repo", str(invoice_repo))
    assert "model:" not in plain.stdout
    scripted([fix_call(), "All tests pass now, I changed > to >=."])
    (invoice_repo / "billing.py").write_text((invoice_repo / "billing.py").read_text().replace(FIX_NEW, FIX_OLD))
    res = invoke(TASK, "--repo", str(invoice_repo), "-v")
    assert res.exit_code == 0, res.output
    assert "model: All tests pass now, I changed > to >=." in res.stdout
    assert "model: ```json" in res.stdout and "→ replace_in_file" in res.stdout


def test_verbose_shows_tool_output_with_its_lines(invoice_repo: Path, scripted, invoke):
    scripted([call("read_file", path="billing.py"), fix_call(), "Fixed."])
    res = invoke(TASK, "--repo", str(invoice_repo), "-v")
    assert res.exit_code == 0, res.output
    rows = res.stdout.splitlines()  # the file as read_file printed it: a row per line, not one squashed line
    header = rows.index("     billing.py (lines 1-32 of 32):")
    assert "↳ read_file(path='billing.py') ok" in rows[header - 1]
    assert rows[header + 3].strip() == "3| from dataclasses import dataclass"
    assert rows[header + 5].strip().startswith("5| BULK_THRESHOLD = 10")


def test_dash_h_is_help_and_flags_show_no_placeholder(invoke):
    for args in (["-h"], ["run", "-h"], ["runs", "-h"], ["batch", "-h"]):
        res = invoke(*args)
        assert res.exit_code == 0 and "Usage" in res.stdout, (args, res.output)
    run_help = invoke("run", "-h").stdout
    assert "--dry-run" in run_help and "<bool>" not in run_help and "<int>" in run_help


def test_json_is_one_event_per_line_and_the_result_last(invoice_repo: Path, scripted, invoke):
    scripted([call("read_file", path="billing.py"), fix_call(), "Fixed."])
    res = invoke(TASK, "--repo", str(invoice_repo), "--json")
    assert res.exit_code == 0, res.output
    assert res.stdout.endswith("\n")
    records = [json.loads(line) for line in res.stdout.splitlines()]  # every line, first byte to last
    assert all(set(r) >= {"event_type", "run_id", "ts"} for r in records)
    assert all("event" not in r for r in records)
    kinds = [r["event_type"] for r in records]
    assert "engine.state" in kinds and kinds.count("tool.call") >= 2
    last = records[-1]
    assert last["event_type"] == "run.result" and last["status"] == "success"
    assert FIX_NEW in last["metadata"]["diff"] and last["metadata"]["files_changed"] == ["billing.py"]
    assert last["metadata"]["fixer"] == "agent" and last["metadata"]["usage"]["llm_calls"] == 3
    assert kinds.count("model.call") == 3
    assert {r["run_id"] for r in records} == {last["run_id"]}


def test_read_only_offers_no_tool_that_writes_or_runs_code(invoice_repo: Path, scripted, invoke):
    before = (invoice_repo / "billing.py").read_text()
    models = scripted([fix_call(), call("run_pytest"), "The bug: > should be >= on line 19."])
    # a question: the agent's read-only loop (a task that needs an edit ends with a proposal: test_safe_modes)
    res = invoke("explain how the bulk discount is computed", "--repo", str(invoice_repo), "--read-only")
    bound = {t.name for t in models["actor"].bound_tools}
    assert {"read_file", "grep"} <= bound
    assert not bound & {"write_file", "replace_in_file", "apply_patch", "move_file", "delete_file", "run_pytest",
                        "run_python_file", "ask_codebase"}
    system = models["actor"].calls[0][0].content
    assert "replace_in_file" not in system and "run_pytest" not in system
    assert "! unknown tool 'replace_in_file'" in res.stdout  # asked for anyway: refused
    assert (invoice_repo / "billing.py").read_text() == before
    assert "files changed: (none)" in res.stdout


@pytest.mark.parametrize("flags", [["--read-only", "--confirm"], ["--quiet", "--verbose"]])
def test_exclusive_flags_are_bad_input(invoice_repo: Path, flags, invoke):
    res = invoke(TASK, "--repo", str(invoice_repo), *flags)
    assert res.exit_code == 2 and "exclude each other" in res.stderr
    assert not (invoice_repo / ".codur").exists()


def test_session_and_resume_reach_the_run_request(invoice_repo: Path, monkeypatch: pytest.MonkeyPatch, invoke):
    seen = []

    def fake_run(request, **kwargs):
        seen.append(request)
        return RunResult(run_id=request.run_id or "r1", status=RunStatus.SUCCESS, reason="verified")

    monkeypatch.setattr("codur.engine.runner.run", fake_run)
    res = invoke(TASK, "--repo", str(invoice_repo), "--session", "s-42", "--quiet")
    assert res.exit_code == 0, res.output
    assert seen[-1].session_id == "s-42" and not seen[-1].resume
    (invoice_repo / ".codur" / "runs" / "20261122-101010-abcdef").mkdir(parents=True)
    res = invoke(TASK, "--repo", str(invoice_repo), "--resume", "20261122-101010-abcdef", "--quiet")
    assert res.exit_code == 0, res.output
    assert seen[-1].run_id == "20261122-101010-abcdef" and seen[-1].resume is True


def test_resume_by_prefix_alone_takes_the_task_and_settings_of_a_cancelled_run(
        invoice_repo: Path, scripted, invoke, monkeypatch: pytest.MonkeyPatch):
    import os
    import signal

    def ctrl_c(_messages):
        os.kill(os.getpid(), signal.SIGINT)  # the user presses Ctrl-C during the first model call
        return fix_call()

    monkeypatch.setenv("CODUR_FIXERS", "agent")
    monkeypatch.setenv("CODUR_MAX_TURNS", "2")
    scripted([ctrl_c])
    first = invoke(TASK, "--repo", str(invoice_repo))
    assert first.exit_code == 130, first.output
    [run_id] = [d.name for d in (invoice_repo / ".codur" / "runs").iterdir()]
    assert f"resume: codur --resume {run_id} --repo {invoice_repo}" in first.stdout

    monkeypatch.delenv("CODUR_FIXERS")  # the resumed run keeps the first start's settings anyway
    monkeypatch.delenv("CODUR_MAX_TURNS")
    seen = []
    models = scripted([fix_call(), "Fixed."], planner=['{"task_type": "code_fix", "steps": []}'])
    monkeypatch.setattr("codur.commands.run.provide_models", lambda config: seen.append(config) or
                        __import__("codur.llm", fromlist=["StaticModelProvider"]).StaticModelProvider(models))
    resumed = invoke("--resume", run_id[:-3], "--repo", str(invoice_repo), "--max-cost", "1")
    assert resumed.exit_code == 0, resumed.output
    assert f"codur · {TASK} ·" in resumed.stdout and "status: success" in resumed.stdout
    assert seen[-1].fixers == ["agent"] and seen[-1].max_turns == 2  # from the first start
    assert seen[-1].max_cost_usd == 1  # an option given now wins
    assert [d.name for d in (invoice_repo / ".codur" / "runs").iterdir()] == [run_id]  # the same run went on
    assert FIX_NEW in (invoice_repo / "billing.py").read_text()


def test_resume_of_an_unknown_or_ambiguous_prefix_is_one_line(invoice_repo: Path, invoke):
    for name in ("20261122-101010-abcdef", "20261122-101010-abc999"):
        (invoice_repo / ".codur" / "runs" / name).mkdir(parents=True)
    res = invoke("--resume", "20261122-101010-abc", "--repo", str(invoice_repo))
    assert res.exit_code == 2 and "ambiguous, 2 runs match" in res.stderr
    res = invoke("--resume", "nope", "--repo", str(invoice_repo))
    assert res.exit_code == 2 and "no run with that id or prefix" in res.stderr
    res = invoke("--repo", str(invoice_repo))
    assert res.exit_code == 2 and "codur --resume RUN_ID" in res.stderr


@pytest.mark.parametrize("task_type", ["code_fix", "code_generation", "refactor", "file_operation"])
def test_read_only_selection_and_refusal(task_type: str, invoice_repo: Path):
    from codur.graph.prompts import READ_ONLY_EXCLUDED, build_system_prompt
    from codur.tools.executor import ToolExecutor, ToolSettings

    prompt, specs = build_system_prompt("actor", task_type, read_only=True)
    assert specs and not any(s.side_effects & set(READ_ONLY_EXCLUDED) for s in specs)
    assert "Do not change files" in prompt
    _, normal = build_system_prompt("actor", task_type)
    assert any(s.side_effects & set(READ_ONLY_EXCLUDED) for s in normal)  # the flag is what removed them
    result = ToolExecutor(invoice_repo, ToolSettings(policy="read_only")).execute("run_pytest", {})
    assert not result.ok and "read-only" in result.output


def test_a_bug_fixed_by_mutation_search_names_its_fixer(invoice_repo: Path, scripted, invoke,
                                                        monkeypatch: pytest.MonkeyPatch):
    scripted([])  # no model call is needed: mutation search fixes it
    monkeypatch.setenv("CODUR_REPAIR", "true")
    res = invoke(TASK, "--repo", str(invoice_repo), "--json")
    assert res.exit_code == 0, res.output
    records = [json.loads(line) for line in res.stdout.splitlines()]
    kinds = [r["event_type"] for r in records]
    assert "patch.found" in kinds and "model.call" not in kinds
    meta = records[-1]["metadata"]
    assert meta["fixer"] == "mutation search" and meta["timings"]["repair_s"] > 0
    assert FIX_NEW in (invoice_repo / "billing.py").read_text()


def test_a_follow_up_run_of_a_session_sees_the_earlier_run(invoice_repo: Path, scripted, invoke):
    scripted([fix_call(), "Fixed the threshold."])
    first = invoke(TASK, "--repo", str(invoice_repo), "--session", "s1", "--quiet")
    assert first.exit_code == 0, first.output
    models = scripted([call("read_file", path="billing.py"), "Negative quantities get no discount already."])
    invoke("now also check negative quantities", "--repo", str(invoice_repo), "--session", "s1", "--quiet")
    prompt = models["actor"].calls[0][1].content
    assert "Earlier in this session" in prompt and TASK in prompt and "billing.py" in prompt


def test_a_failed_run_says_its_edits_were_reverted_and_keep_failed_keeps_them(invoice_repo: Path, scripted,
                                                                              invoke):
    original = (invoice_repo / "billing.py").read_bytes()
    wrong = call("replace_in_file", path="billing.py", old="10% when at least", new="10% from")
    scripted([wrong, "Reworded the docstring."])
    res = invoke(TASK, "--repo", str(invoice_repo))
    assert res.exit_code == 1, res.output
    run_id = json.loads(next((invoice_repo / ".codur" / "runs").glob("*/result.json")).read_text())["run_id"]
    assert f"edits reverted; the attempt is in .codur/runs/{run_id}/attempt.patch" in res.stdout
    assert "files attempted: billing.py" in res.stdout and "+    \"\"\"Percent off a line: 10% from" in res.stdout
    assert (invoice_repo / "billing.py").read_bytes() == original

    scripted([wrong, "Reworded the docstring."])
    kept = invoke(TASK, "--repo", str(invoice_repo), "--keep-failed")
    assert kept.exit_code == 1 and "edits reverted" not in kept.stdout
    assert "files changed: billing.py" in kept.stdout and b"10% from" in (invoice_repo / "billing.py").read_bytes()


def test_a_run_refused_by_a_locked_repo_names_no_trace(invoice_repo: Path, scripted, invoke):
    from codur.engine.lock import RepoLock

    scripted([fix_call(), "Fixed."])
    lock = RepoLock.acquire(invoice_repo, "20261122-000000-holder")
    try:
        res = invoke(TASK, "--repo", str(invoice_repo))
    finally:
        lock.release()
    assert res.exit_code == 1 and "repo_locked" in res.stdout
    assert "trace:" not in res.stdout  # the run never started: it wrote no trace to point at
