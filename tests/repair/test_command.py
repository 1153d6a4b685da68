"""The Typer command: output, exit codes, bad input."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from codur.repair.command import repair_command

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
