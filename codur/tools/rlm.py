"""The RLM tool: answer a question over many files of the repo with a recursive language model.

The selected files become one long ``context`` (each file under a
``=== path ===`` header) that the model explores with code in a sandboxed REPL;
see :mod:`codur.rlm` (Zhang, Kraska & Khattab, "Recursive Language Models", 2025).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from codur.tools.context import ToolContext, ToolError
from codur.tools.masking import origin_secrets
from codur.tools.reading import read_bytes_bounded
from codur.tools.registry import SideEffect, TaskType, tool
from codur.tools.visibility import glob_matcher

MAX_CONTEXT_BYTES = 20_000_000
DEFAULT_PATHS = ["**/*.py"]


def _check_glob(pattern: str) -> str:
    """The pattern stripped, or ToolError when it could reach outside the repo."""
    pat = pattern.strip()
    if not pat:
        raise ToolError("empty path pattern")
    if pat.startswith(("/", "~")) or "\\" in pat or ".." in PurePosixPath(pat).parts:
        raise ToolError(f"path pattern escapes the repository: {pattern!r}; give globs relative to the repo root")
    return pat.rstrip("/") + "/**" if pat.endswith("/") else pat


def load_repo_context(ctx: ToolContext, paths: list[str], max_bytes: int = MAX_CONTEXT_BYTES) -> tuple[str, int, int]:
    """The visible text files matching ``paths`` as one string of ``=== path ===`` sections.

    Args:
        paths: globs relative to the repo root ('**/*.py', 'docs/', 'logs/app.log').
        max_bytes: total size cap, bytes; files past it are left out.

    Returns:
        (context, files included, files left out by the cap).

    Raises:
        ToolError: a pattern escapes the repo, or no text file matches.
    """
    matchers = [glob_matcher(_check_glob(p)) for p in paths or DEFAULT_PATHS]
    parts, size, included, left_out = [], 0, 0, 0
    for path in ctx.walk(".", visible=True):
        rel = ctx.rel(path)
        if not any(match(rel) for match in matchers):
            continue
        if path.is_symlink() and not path.resolve().is_relative_to(ctx.root):
            continue
        try:
            data = read_bytes_bounded(path, max_bytes, rel)
        except ToolError:  # FIFOs, devices, unreadable files, a file over the whole cap
            left_out += path.is_file()
            continue
        if b"\0" in data[:8192]:
            continue
        if size + len(data) > max_bytes:
            left_out += 1
            continue
        parts.append(f"=== {rel} ===\n{data.decode('utf-8', 'replace')}\n")
        size += len(data)
        included += 1
    if not included:
        raise ToolError(f"no text file of the repo matches {paths}")
    return "".join(parts), included, left_out


@tool(scenarios=[TaskType.CODE_ANALYSIS, TaskType.EXPLANATION], side_effects=[SideEffect.CODE_EXECUTION])
def ask_codebase(ctx: ToolContext, question: str, paths: list[str] = DEFAULT_PATHS) -> str:
    """Answer a question over many repo files (paths: globs) with a recursive language model that runs code.

    The files become one long ``context`` the model explores in a sandboxed REPL. Use it
    for questions over a whole repo or files too long to read; not for single lookups.
    """
    from codur.rlm.config import RLMConfig
    from codur.rlm.engine import RLMEngine
    from codur.rlm.model import build_model, window_tokens

    if not question.strip():
        raise ToolError("the question is empty")
    context, included, left_out = load_repo_context(ctx, list(paths))
    if ctx.model_factory is not None:  # the run's model: its calls are recorded (and priced) in the run's ledger
        model, prices = ctx.model_factory(), {}
    else:  # outside a run (e.g. `codur tools`): a model from the environment
        model, prices = build_model()
    window, answer_tokens = window_tokens()  # a short context goes to the model directly (issue 40, item 4)
    config = RLMConfig(max_wall_s=ctx.timeout_s, context_window_tokens=window, direct_answer_tokens=answer_tokens,
                       answer_alone=False)
    if ctx.budget_left is not None:  # a child of the run's budget: never more than the run has left
        tokens_left, seconds_left = ctx.budget_left()
        if tokens_left <= 0 or seconds_left <= 0:
            raise ToolError("the run's budget is spent: no tokens or time left for an RLM run")
        config = config.model_copy(update={
            "max_tokens": min(config.max_tokens or tokens_left, tokens_left),
            "max_wall_s": min(config.max_wall_s or seconds_left, seconds_left)})
    secrets = origin_secrets(ctx.root, allow_secrets=ctx.allow_secrets)  # not read by path from the REPL either
    result = RLMEngine(model, config, prices=prices, run_dir=ctx.run_dir, masked=secrets.masked,
                       replaced=secrets.views).run(question, context)
    trace = result.trace
    if result.answer_source == "error":
        raise ToolError(f"the RLM run failed: {trace.error}")
    notes = [f"{included} files, {len(context):,} chars", f"path {trace.path}", f"{len(trace.iterations)} iterations",
             f"{len(trace.subcalls)} sub-calls", f"answer source {result.answer_source}"]
    if left_out:
        notes.append(f"{left_out} files left out past {MAX_CONTEXT_BYTES // 1_000_000} MB")
    notes += trace.warnings
    if result.trace_path:
        notes.append(f"trace {result.trace_path}")
    return f"{result.answer}\n\n(rlm: {'; '.join(notes)})"
