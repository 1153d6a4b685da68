"""The suspicious code the agent's prompt names: spectrum-based fault localization's best lines
and functions (delegate asks for them; the patch node hands on the ones its search found)."""

from __future__ import annotations

from codur.tools.context import ToolContext, ToolError


def with_text(ctx: ToolContext, ranked: list[tuple[str, int, float]], top: int = 4) -> list[dict]:
    """The best ``top`` of ``ranked`` (path, line, score) with their source text; lines
    scoring under half the best are left out."""
    if not ranked:
        return []
    best = ranked[0][2]
    out = []
    for path, line, score in ranked:
        if score < best / 2 or len(out) >= top:
            break
        try:
            text = ctx.read_text(path).splitlines()[line - 1].strip()
        except (ToolError, IndexError):
            continue
        out.append({"path": path, "line": line, "score": score, "text": text})
    return out


def suspicious_code(ctx: ToolContext, top: int = 4) -> tuple[list[dict], list[dict]]:
    """The most suspicious source lines by spectrum-based fault localization (Ochiai over
    per-test line coverage, :func:`codur.validate.localize_faults`), with their text
    (lines scoring under half the best left out), and the most suspicious functions
    across files (:func:`codur.patch.ranking.summary`). ([], []) when localization fails.

    The run in the repo keeps the test tool's rules (:meth:`codur.tools.executor.ToolExecutor.run_tests`):
    it starts only while the run is not cancelled (the context's call gate); through the warm
    fork server under bubblewrap the repo is read-only to it; without that sandbox, what the
    tests changed is journaled like any test run's (:func:`codur.tools.snapshot.note`),
    and under the tool policy read_only the run is skipped (([], [])): nothing may write the repo."""
    from codur.patch import ranking
    from codur.testing.confine import problem
    from codur.testing.forkserver import can_fork_server
    from codur.tools import snapshot
    from codur.validate.localize import localize_faults

    sandboxed = can_fork_server(ctx.tests()) and problem() is None
    if ctx.read_only and not sandboxed:
        return [], []
    try:
        with ctx.busy():
            before = None if sandboxed else snapshot.take(ctx)
            try:
                loc = localize_faults(ctx.root, ctx.tests(), test_timeout_s=20.0, run_timeout_s=120.0,
                                      memory_mb=ctx.memory_mb, allow_secrets=ctx.allow_secrets)
            finally:
                if before is not None:
                    snapshot.note(ctx, before, by="fault localization's test run")
    except Exception:  # noqa: BLE001 - a hint, not a requirement
        return [], []

    def read(rel: str) -> str:
        try:
            return ctx.read_text(rel)
        except ToolError as exc:  # not a file the ranking can read: left out
            raise OSError(str(exc)) from exc

    ranked = ranking.rank_functions(loc.scores, read)
    return with_text(ctx, loc.suspicious, top), ranking.summary(ranked)


