"""File tools: list, read, write and edit files inside the repository."""

from __future__ import annotations

from pathlib import Path

import pathspec

from codur.tools.context import ToolContext, ToolError
from codur.tools.registry import SideEffect, TaskType, tool

ALL_CODE_TASKS = tuple(TaskType)
EDIT_TASKS = (TaskType.CODE_FIX, TaskType.CODE_GENERATION, TaskType.REFACTOR,
              TaskType.DOCUMENTATION, TaskType.FILE_OPERATION)


def _gitignore(ctx: ToolContext) -> pathspec.PathSpec:
    gi = ctx.root / ".gitignore"
    lines = gi.read_text(errors="replace").splitlines() if gi.is_file() else []
    return pathspec.PathSpec.from_lines("gitwildmatch", lines)


@tool(scenarios=ALL_CODE_TASKS)
def list_files(ctx: ToolContext, directory: str = ".", pattern: str = "*", max_results: int = 200) -> str:
    """List files under a directory of the repo (honours .gitignore). pattern is a glob like '*.py'."""
    spec = _gitignore(ctx)
    out = []
    for p in ctx.walk(directory):
        rel = ctx.rel(p)
        if spec.match_file(rel) or not Path(rel).match(pattern) and not p.match(pattern):
            continue
        out.append(rel)
    if not out:
        return f"no files match {pattern!r} under {directory}"
    more = f"\n… {len(out) - max_results} more" if len(out) > max_results else ""
    return "\n".join(out[:max_results]) + more


@tool(scenarios=ALL_CODE_TASKS)
def read_file(ctx: ToolContext, path: str, start_line: int = 1, end_line: int | None = None) -> str:
    """Read a text file with line numbers; optionally only lines start_line..end_line (1-based)."""
    lines = ctx.read_text(path).splitlines()
    if start_line < 1 or (end_line is not None and end_line < start_line):
        raise ToolError(f"bad line range {start_line}..{end_line}")
    end = len(lines) if end_line is None else min(end_line, len(lines))
    if lines and start_line > len(lines):
        raise ToolError(f"{path} has only {len(lines)} lines")
    body = "\n".join(f"{i:4d}| {lines[i - 1]}" for i in range(start_line, end + 1))
    return f"{path} (lines {start_line}-{end} of {len(lines)}):\n{body}" if lines else f"{path} is empty"


@tool(scenarios=EDIT_TASKS, side_effects=[SideEffect.FILE_MUTATION])
def write_file(ctx: ToolContext, path: str, content: str) -> str:
    """Create or overwrite a whole file with content (written atomically)."""
    existed = ctx.resolve(path).exists()
    ctx.write_text(path, content)
    return f"{'overwrote' if existed else 'created'} {path} ({len(content.splitlines())} lines)"


@tool(scenarios=EDIT_TASKS, side_effects=[SideEffect.FILE_MUTATION])
def replace_in_file(ctx: ToolContext, path: str, old: str, new: str) -> str:
    """Replace the exact text old with new in a file; old must occur exactly once (copy it from read_file, without line numbers)."""
    text = ctx.read_text(path)
    count = text.count(old) if old else 0
    if count == 0:
        stripped = old.strip()
        hint = " (it matches if leading/trailing whitespace is ignored: copy the exact text)" \
            if stripped and text.count(stripped) == 1 else ""
        raise ToolError(f"old text not found in {path}{hint}; read the file and copy the exact lines")
    if count > 1:
        raise ToolError(f"old text occurs {count} times in {path}; include more surrounding lines to make it unique")
    ctx.write_text(path, text.replace(old, new, 1))
    return f"replaced 1 occurrence in {path}"
