"""``codur tools [--task-type T]`` prints the registry."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from codur.commands.tools import tools_command


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command("tools")(tools_command)
    app.command("other")(lambda: None)  # two commands: typer keeps the "tools" sub-command name
    return app


def test_lists_every_tool() -> None:
    result = CliRunner().invoke(_app(), ["tools"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    for name in ("read_file", "apply_patch", "git_log", "done", "run_pytest"):
        assert name in result.output
    assert "file_mutation" in result.output and "code_execution" in result.output
    assert "read_files(paths: list[str])" in result.output  # [str] is not taken for Rich markup


def test_filters_by_task_type() -> None:
    result = CliRunner().invoke(_app(), ["tools", "--task-type", "explanation"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "read_file" in result.output and "git_log" in result.output
    assert "write_file" not in result.output and "apply_patch" not in result.output


def test_unknown_task_type_is_a_clear_error() -> None:
    result = CliRunner().invoke(_app(), ["tools", "--task-type", "poetry"], env={"COLUMNS": "250"})
    assert result.exit_code == 2
    assert "unknown task type 'poetry'" in result.output and "code_fix" in result.output
