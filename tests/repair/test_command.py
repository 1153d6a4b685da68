"""The Typer command: output, exit codes, bad input."""

from __future__ import annotations

import json

import typer
from typer.testing import CliRunner

from codur.commands.repair import repair_command

from .conftest import snapshot

app = typer.Typer()
app.command()(repair_command)


def test_dry_run_prints_the_patch_and_exits_zero(off_by_one_repo):
    before = snapshot(off_by_one_repo)
    result = CliRunner().invoke(app, ["--repo", str(off_by_one_repo), "--dry-run", "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert "tests/test_calc.py::test_total" in result.output
    assert "+    for i in range(len(xs)):" in result.output
    assert "calc.py:3" in result.output
    assert "mutants tried" in result.output
    assert snapshot(off_by_one_repo) == before
    from codur.history.runs import list_runs

    [run] = list_runs(off_by_one_repo)  # listed as what it was, not as a failure
    assert (run.status, run.reason) == ("dry_run", "dry run: patch found, not written")


def test_nothing_to_repair_exits_one(tmp_path):
    (tmp_path / "ok.py").write_text("def one():\n    return 1\n")
    (tmp_path / "test_ok.py").write_text("from ok import one\n\n\ndef test_one():\n    assert one() == 1\n")
    result = CliRunner().invoke(app, ["--repo", str(tmp_path), "--workers", "1"])
    assert result.exit_code == 1
    assert "no_failing_tests" in result.output


def test_missing_repo_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(app, ["--repo", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0
    assert "does not exist" in result.output


def test_repo_that_is_a_file_is_rejected(tmp_path):
    (tmp_path / "f.py").write_text("")
    result = CliRunner().invoke(app, ["--repo", str(tmp_path / "f.py")])
    assert result.exit_code == 2
    assert "not a directory" in result.output


def test_unparsable_test_command_is_rejected(tmp_path):
    result = CliRunner().invoke(app, ["--repo", str(tmp_path), "--test", "pytest 'unclosed"])
    assert result.exit_code == 2


def test_repair_is_a_run_with_a_folder_a_journal_and_undo(off_by_one_repo):
    """One front door: `codur repair` is the main job with the mutation fixer only, so its patch
    is in a run folder (trace, diff, result, journal) and `codur undo` puts it back."""
    from codur.commands.app import app as codur_app

    before = snapshot(off_by_one_repo)
    result = CliRunner().invoke(app, ["--repo", str(off_by_one_repo), "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert "patched:" in result.output and "`codur undo` puts it back" in result.output
    after = snapshot(off_by_one_repo)
    assert after != before and "range(len(xs))" in after["calc.py"].decode()
    (run_dir,) = (off_by_one_repo / ".codur" / "runs").iterdir()
    assert {"trace.jsonl", "diff.patch", "result.json", "journal.json"} <= {p.name for p in run_dir.iterdir()}
    assert json.loads((run_dir / "result.json").read_text())["metadata"]["fixer"] == "mutation search"
    undone = CliRunner().invoke(codur_app, ["undo", "--repo", str(off_by_one_repo)])
    assert undone.exit_code == 0, undone.output
    assert snapshot(off_by_one_repo) == before


def test_codur_repair_through_the_cli_is_listed_by_codur_runs_and_undone(off_by_one_repo):
    """`codur repair` as the user types it: its run is one `codur runs` lists, with the result's
    figures (no model: 0 tokens), its journal keeps calc.py's original, and `codur undo` restores it."""
    from codur.commands.app import app as codur_app

    original = (off_by_one_repo / "calc.py").read_bytes()
    result = CliRunner().invoke(codur_app, ["repair", "--repo", str(off_by_one_repo), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert (off_by_one_repo / "calc.py").read_bytes() != original
    (run_dir,) = (off_by_one_repo / ".codur" / "runs").iterdir()
    assert "calc.py" in (run_dir / "journal.json").read_text()
    listed = CliRunner().invoke(codur_app, ["runs", "--repo", str(off_by_one_repo), "--json"])
    assert listed.exit_code == 0, listed.output
    (row,) = json.loads(listed.output)
    saved = json.loads((run_dir / "result.json").read_text())
    assert (row["run_id"], row["status"], row["fixer"]) == (run_dir.name, "success", "mutation search")
    assert row["tokens"] == saved["metadata"]["usage"]["total_tokens"] == 0
    assert row["seconds"] == saved["duration_s"] and row["files_changed"] == ["calc.py"]
    undone = CliRunner().invoke(codur_app, ["undo", "--repo", str(off_by_one_repo)])
    assert undone.exit_code == 0, undone.output
    assert (off_by_one_repo / "calc.py").read_bytes() == original
