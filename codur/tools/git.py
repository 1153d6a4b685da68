"""Git tools: status, diff and log of the repo, read-only.

git runs as ``git -C <root>`` through :meth:`ToolContext.run` with the repo's own
hooks, pager, external diff, textconv and fsmonitor switched off, so a repo's
config cannot make these tools run its code, and without optional index locks. They see the
sandbox's masked view (:mod:`codur.tools.masking`): a file it masks is left out of
``git_status`` and ``git_diff`` (a masked, committed ``.env`` would show as all lines removed).
"""

from __future__ import annotations

from codur.tools.context import ToolContext, ToolError
from codur.tools.masking import hide_in_diff, hide_in_status, masked_names
from codur.tools.registry import TaskType, tool

T = TaskType
GIT_TIMEOUT_S = 30.0
SAFE_CONFIG = ("-c", "core.fsmonitor=false", "-c", "core.pager=cat", "-c", "diff.external=",
               "-c", "core.hooksPath=/dev/null", "-c", "color.ui=false", "-c", "core.quotepath=off")


def git(ctx: ToolContext, *args: str) -> str:
    """Run one read-only git command in the repo and return its stdout.

    Raises:
        ToolError: not a git repository, git missing, a timeout, or git's own error.
    """
    res = ctx.run(["git", "-C", str(ctx.root), *SAFE_CONFIG, *args],
                  timeout_s=min(GIT_TIMEOUT_S, ctx.timeout_s),
                  env={"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat"})
    if res.timed_out:
        raise ToolError(f"git {args[0]} timed out after {GIT_TIMEOUT_S:g}s")
    if res.exit_code != 0:
        if "not a git repository" in res.stderr.lower():
            raise ToolError("the repo is not a git repository; use list_files and read_file instead")
        if "does not have any commits yet" in res.stderr:
            return ""
        raise ToolError(f"git {args[0]} failed: {res.stderr.strip()[-500:]}")
    return res.stdout


@tool(scenarios=(T.CODE_ANALYSIS, T.RESULT_VERIFICATION, T.REFACTOR, T.FILE_OPERATION))
def git_status(ctx: ToolContext) -> str:
    """Show the branch and the changed, staged and untracked files."""
    out = git(ctx, "status", "--short", "--branch", "--", ".")
    out = out if ctx.allow_secrets else hide_in_status(out, masked_names(ctx.root))
    return out.rstrip() + ("" if out.count("\n") > 1 else "\nworking tree clean")


@tool(scenarios=(T.CODE_ANALYSIS, T.RESULT_VERIFICATION, T.REFACTOR))
def git_diff(ctx: ToolContext, path: str = ".", staged: bool = False) -> str:
    """Show uncommitted changes as a unified diff (staged=True: the staged ones)."""
    ctx.resolve(path)
    out = git(ctx, "diff", "--no-ext-diff", "--no-textconv", "--relative",
              *(["--cached"] if staged else []), "--", path)
    out = out if ctx.allow_secrets else hide_in_diff(out, masked_names(ctx.root))
    return out.rstrip() or f"no {'staged' if staged else 'unstaged'} changes under {path}"


@tool(scenarios=(T.CODE_ANALYSIS, T.EXPLANATION, T.RESULT_VERIFICATION))
def git_log(ctx: ToolContext, max_count: int = 10, path: str = ".") -> str:
    """Show recent commits, optionally only those touching path."""
    ctx.resolve(path)
    n = max(1, min(max_count, 100))
    out = git(ctx, "log", f"--max-count={n}", "--date=short", "--pretty=format:%h %ad %an: %s", "--", path)
    return out.rstrip() or "no commits yet"
