"""File tools: list, read, write, edit, patch, move and delete files inside the repository.

Every change goes through :class:`ToolContext` (atomic, journaled, confined to the
repo); a tool that fails leaves the disk as it was.
"""

from __future__ import annotations

from codur.tools.context import ToolContext, ToolError
from codur.tools.patch import apply_hunks, parse_unified_diff
from codur.tools.reading import MAX_RANGE_READ_BYTES
from codur.tools.registry import SideEffect, TaskType, tool
from codur.tools.visibility import glob_matcher

T = TaskType
ALL_CODE_TASKS = tuple(TaskType)
EDIT_TASKS = (T.CODE_FIX, T.CODE_GENERATION, T.REFACTOR, T.DOCUMENTATION, T.FILE_OPERATION)
READ_MANY_TASKS = (T.CODE_ANALYSIS, T.EXPLANATION, T.DOCUMENTATION, T.REFACTOR)
MAX_FILES_PER_READ = 10
MAX_LISTED = 200


@tool(scenarios=ALL_CODE_TASKS)
def list_files(ctx: ToolContext, directory: str = ".", pattern: str = "*") -> str:
    """List repo files under directory (honours .gitignore); pattern is a glob like '*.py'."""
    matches = glob_matcher(pattern)
    out = [rel for rel in map(ctx.rel, ctx.walk(directory, visible=True)) if matches(rel)]
    if not out:
        return f"no files match {pattern!r} under {directory}"
    more = f"\n… {len(out) - MAX_LISTED} more; narrow directory or pattern" if len(out) > MAX_LISTED else ""
    return "\n".join(out[:MAX_LISTED]) + more


@tool(scenarios=ALL_CODE_TASKS)
def read_file(ctx: ToolContext, path: str, start_line: int = 1, end_line: int | None = None) -> str:
    """Read a text file with line numbers, optionally only lines start_line..end_line."""
    if start_line < 1 or (end_line is not None and end_line < start_line):
        raise ToolError(f"bad line range {start_line}..{end_line}: lines are numbered from 1")
    ranged = start_line > 1 or end_line is not None
    lines = ctx.read_text(path, **({"max_bytes": MAX_RANGE_READ_BYTES} if ranged else {})).splitlines()
    if not lines:
        return f"{path} is empty"
    if start_line > len(lines):
        raise ToolError(f"{path} has only {len(lines)} lines")
    end = len(lines) if end_line is None else min(end_line, len(lines))
    body = "\n".join(f"{i:4d}| {lines[i - 1]}" for i in range(start_line, end + 1))
    return f"{path} (lines {start_line}-{end} of {len(lines)}):\n{body}"


@tool(scenarios=READ_MANY_TASKS)
def read_files(ctx: ToolContext, paths: list[str]) -> str:
    """Read up to 10 text files with line numbers."""
    if not paths:
        raise ToolError("give at least one path")
    if len(paths) > MAX_FILES_PER_READ:
        raise ToolError(f"{len(paths)} files asked; read at most {MAX_FILES_PER_READ} at once")
    parts = []
    for path in paths:
        try:
            parts.append(read_file(ctx, path))
        except ToolError as exc:
            parts.append(f"{path}: Error: {exc}")
    return "\n\n".join(parts)


@tool(scenarios=EDIT_TASKS, side_effects=[SideEffect.FILE_MUTATION])
def write_file(ctx: ToolContext, path: str, content: str) -> str:
    """Create or overwrite a file with content."""
    existed = ctx.resolve(path).exists()
    ctx.write_text(path, content)
    return f"{'overwrote' if existed else 'created'} {path} ({len(content.splitlines())} lines)"


@tool(scenarios=EDIT_TASKS, side_effects=[SideEffect.FILE_MUTATION])
def replace_in_file(ctx: ToolContext, path: str, old: str, new: str) -> str:
    """Replace the exact text old with new in a file; old must occur exactly once (copy it without line numbers)."""
    text = ctx.read_text(path)
    if old == new:
        raise ToolError("old and new are the same text: nothing would change; write the corrected code in new")
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


@tool(scenarios=(T.CODE_FIX, T.REFACTOR, T.CODE_GENERATION), side_effects=[SideEffect.FILE_MUTATION])
def apply_patch(ctx: ToolContext, patch: str) -> str:
    """Apply a unified diff (---/+++ headers, @@ hunks) to files; context must match exactly, all or nothing."""
    changes: dict[str, str | None] = {}
    report = []
    for fp in parse_unified_diff(patch):
        if fp.old_path is None:
            if ctx.resolve(fp.new_path or "").exists():
                raise ToolError(f"the patch creates {fp.new_path}, which already exists")
            text = ""
        else:
            earlier = changes.get(fp.old_path)  # a file patched twice in one diff
            text = earlier if earlier is not None else ctx.read_text(fp.old_path)
        result = apply_hunks(text, fp.hunks, fp.path)
        if fp.new_path is None:
            if result.strip():
                raise ToolError(f"the patch deletes {fp.old_path} but its hunks leave lines in it")
            changes[fp.old_path or ""] = None
            report.append(f"deleted {fp.old_path}")
            continue
        changes[fp.new_path] = result
        if fp.old_path is not None and fp.old_path != fp.new_path:
            changes[fp.old_path] = None
            report.append(f"renamed {fp.old_path} -> {fp.new_path} ({len(fp.hunks)} hunks)")
        else:
            verb = "created" if fp.old_path is None else "patched"
            report.append(f"{verb} {fp.new_path} ({len(fp.hunks)} hunk{'s' * (len(fp.hunks) > 1)})")
    ctx.write_many(changes)
    return "; ".join(report)


@tool(scenarios=(T.FILE_OPERATION, T.REFACTOR), side_effects=[SideEffect.FILE_MUTATION])
def move_file(ctx: ToolContext, src: str, dst: str) -> str:
    """Move or rename a file inside the repo; dst must not exist."""
    ctx.move(src, dst)
    return f"moved {src} -> {dst}"


@tool(scenarios=(T.FILE_OPERATION, T.REFACTOR), side_effects=[SideEffect.FILE_MUTATION])
def delete_file(ctx: ToolContext, path: str) -> str:
    """Delete one file (not a directory) from the repo."""
    ctx.delete(path)
    return f"deleted {path}"
