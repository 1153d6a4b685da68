"""``codur tools [--task-type T]``: the tool registry as a table."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from codur.tools import REGISTRY, TaskType, list_tools_for_tasks


def tools_command(
    task_type: str | None = typer.Option(
        None, "--task-type", help=f"only the tools for one task type: {', '.join(t.value for t in TaskType)}"
    ),
) -> None:
    """List codur's tools: signature, summary, task types and side effects."""
    if task_type is None:
        specs = REGISTRY.all()
    else:
        try:
            specs = list_tools_for_tasks([TaskType(task_type.strip().lower())])
        except ValueError:
            raise typer.BadParameter(
                f"unknown task type {task_type!r}; choose one of {', '.join(t.value for t in TaskType)}",
                param_hint="--task-type",
            ) from None
    table = Table(title=f"codur tools ({len(specs)})" + (f" for {task_type}" if task_type else ""))
    for column in ("tool", "summary", "task types", "side effects"):
        table.add_column(column, overflow="fold")
    all_types = set(TaskType)
    for s in specs:
        scenarios = "all" if s.scenarios == all_types else ", ".join(sorted(s.scenarios)) or "-"
        table.add_row(escape(s.signature), escape(s.summary), scenarios,
                      ", ".join(sorted(s.side_effects)) or "-")
    Console().print(table)
