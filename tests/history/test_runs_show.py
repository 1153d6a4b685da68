"""`codur runs` and `codur show` over real runs (scripted model) of examples/invoice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from codur.engine.lock import RepoLock

from .conftest import FIX_NEW, FIX_OLD, TASK, failed_run, successful_run


def test_runs_lists_a_failed_and_a_successful_run_newest_first(repo: Path, cli):
    failed = failed_run(repo)
    success = successful_run(repo)
    assert (failed.status.value, success.status.value) == ("failed", "success")

    listed = cli("runs", "--repo", str(repo), "--json")
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)
    assert [r["run_id"] for r in rows] == [success.run_id, failed.run_id]
    assert [r["status"] for r in rows] == ["success", "failed"]
    assert rows[0]["files_changed"] == ["billing.py", "notes.txt", "old.txt"]
    assert rows[1]["files_changed"] == ["billing.py"] and rows[1]["reason"] == failed.reason
    assert rows[0]["task"] == TASK and rows[0]["tokens"] == success.tokens > 0
    assert rows[0]["seconds"] == success.duration_s and rows[0]["cost_usd"] == 0.0
    assert rows[0]["started"] >= rows[1]["started"] and rows[0]["fixer"] == "agent"

    table = cli("runs", "--repo", str(repo))
    assert table.exit_code == 0
    lines = [line for line in table.stdout.splitlines() if success.run_id in line or failed.run_id in line]
    assert len(lines) == 2 and success.run_id in lines[0] and "success" in lines[0] and TASK in lines[0]
    assert "failed" in lines[1]

    assert len(json.loads(cli("runs", "--repo", str(repo), "--json", "--limit", "1").stdout)) == 1


def test_a_run_without_result_json_is_interrupted_or_running(repo: Path, cli):
    result = successful_run(repo)
    (result.run_dir / "result.json").unlink()  # as if the process had been killed before writing it
    rows = json.loads(cli("runs", "--repo", str(repo), "--json").stdout)
    assert rows[0]["status"] == "interrupted" and rows[0]["tokens"] is None
    assert rows[0]["files_changed"] == ["billing.py", "notes.txt", "old.txt"]  # from the journal
    assert rows[0]["task"] == TASK  # from the trace's run.start
    held = RepoLock.acquire(repo, result.run_id)  # the run still working, in another process
    try:
        assert json.loads(cli("runs", "--repo", str(repo), "--json").stdout)[0]["status"] == "running"
        assert "· running" in cli("show", result.run_id, "--repo", str(repo)).stdout
    finally:
        held.release()
    assert json.loads(cli("runs", "--repo", str(repo), "--json").stdout)[0]["status"] == "interrupted"


def test_no_runs_and_a_missing_repo(tmp_path: Path, cli):
    assert json.loads(cli("runs", "--repo", str(tmp_path), "--json").stdout) == []
    missing = cli("runs", "--repo", str(tmp_path / "nope"))
    assert missing.exit_code == 2 and "does not exist" in missing.stderr


def test_show_prints_the_tree_then_the_diff_by_unique_prefix(repo: Path, cli):
    result = successful_run(repo)
    shown = cli("show", result.run_id[:-2], "--repo", str(repo))
    assert shown.exit_code == 0, shown.output
    out = shown.stdout
    assert f"{result.run_id} {TASK} · success (verified) · fixed by agent" in out
    for line in ("turn 0", "turn 1", "initialize", "observe", "plan", "delegate", "execute", "verify", "done"):
        assert line in out
    assert "replace_in_file(path='billing.py') ok" in out and "apply_patch() ok" in out
    assert out.index("turn 1") < out.index("execute") < out.index("replace_in_file") < out.index("verify")
    # the diff follows the tree, as a patch when piped
    assert out.index("done") < out.index(f"-    {FIX_OLD}\n+    {FIX_NEW}")
    assert "+++ b/notes.txt" in out and "--- a/old.txt" in out


def test_show_prints_a_questions_answer(repo: Path, cli):
    from codur import CodurConfig, RunRequest, run
    from codur.llm import ScriptedChatModel, StaticModelProvider

    answer = "The bulk discount threshold is BULK_THRESHOLD in billing.py, 10 items."
    models = StaticModelProvider({"actor": ScriptedChatModel(replies=[answer]),
                                  "planner": ScriptedChatModel(replies=['{"task_type": "question", "steps": []}'])})
    result = run(RunRequest(task="where is the bulk discount threshold set?", repo=repo), models=models,
                 config=CodurConfig(critic=False, repair=False, retry_base_delay_s=0))
    assert answer in result.output_text
    shown = cli("show", result.run_id, "--repo", str(repo))
    assert shown.exit_code == 0, shown.output
    assert f"answer: {result.output_text}" in shown.stdout and "(no changes)" in shown.stdout


def test_show_a_failed_run_names_its_status_and_reason(repo: Path, cli):
    result = failed_run(repo)
    out = cli("show", result.run_id, "--repo", str(repo)).stdout
    assert f"· failed ({result.reason})" in out and "+\"\"\"Percent off a line: 10% from" not in out
    assert "-    \"\"\"Percent off a line: 10% when at least" in out


def test_show_an_unknown_or_ambiguous_id_is_one_line_and_exit_2(repo: Path, cli):
    first, second = failed_run(repo), successful_run(repo)
    unknown = cli("show", "nosuchrun", "--repo", str(repo))
    assert unknown.exit_code == 2 and unknown.stderr.strip().count("\n") == 0
    assert "no run 'nosuchrun'" in unknown.stderr
    common = next(i for i, (a, b) in enumerate(zip(first.run_id, second.run_id, strict=True)) if a != b)
    ambiguous = cli("show", first.run_id[:common], "--repo", str(repo))
    assert ambiguous.exit_code == 2 and "ambiguous: 2 runs match" in ambiguous.stderr


def test_the_codur_command_routes_runs_and_show(repo: Path):
    """`codur runs` is the runs command, not a run whose task is "runs"."""
    result = successful_run(repo)
    proc = subprocess.run([sys.executable, "-m", "codur.commands", "runs", "--repo", str(repo), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert [r["run_id"] for r in json.loads(proc.stdout)] == [result.run_id]
    proc = subprocess.run([sys.executable, "-m", "codur.commands", "show", "zzz", "--repo", str(repo)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1


def test_the_history_commands_import_no_heavy_module():
    """`codur --help` imports codur.commands.history: only Typer and Rich at module level."""
    code = ("import sys, codur.commands.history\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('langgraph', 'langchain_core', "
            "'pydantic_settings') or m in ('codur.config', 'codur.engine', 'codur.tools.journal')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", proc.stdout + proc.stderr
