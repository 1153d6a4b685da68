"""repair (engine state Act): the mutation repair engine as a graph node, no model involved.

Runs :func:`codur.repair.repair` on the repo without applying: fault localization,
AST mutants tested in parallel isolated workers, a plausible patch as a unified diff.
The node applies that diff through the ToolExecutor's ``apply_patch``, so the change
is atomic and journaled and shows in the run's diff like any other edit. When the
agent's edits made no more tests pass, they are reverted first
(from the change journal) and the search starts from the original code.
"""

from __future__ import annotations

from codur.engine.events import emit
from codur.graph.context import CodurContext
from codur.graph.nodes import node
from codur.graph.state import CodurState


@node("repair")
def repair_node(state: CodurState, ctx: CodurContext) -> dict:
    """Search for a plausible patch and apply it; then verify runs again."""
    from codur.repair import repair

    tools = ctx.tools(state["repo"])
    baseline = state.get("observation", {}).get("tests", {}).get("passed_count", 0)
    now = state.get("verification", {}).get("passed_tests", 0)
    reverted = tools.journal.changed_files if tools.journal.changed_files and now <= baseline else []
    if reverted:
        # The agent's edits made no more tests pass: search from the original code, not
        # from the failed attempt (an edit that breaks collection leaves no mutant to try).
        tools.journal.restore()
        emit({"event": "repair.reverted", "files": reverted, "passed_before": baseline, "passed_now": now})
    assert ctx.limits is not None
    remaining = max(10.0, ctx.limits.timeout_s - ctx.limits.elapsed_s())
    result = repair(tools.root, workers=ctx.config.repair_workers, apply=False, on_event=emit,
                    cancel=ctx.limits.cancel, time_budget_s=min(300.0, remaining))
    applied: list[str] = []
    status = result.status
    if status == "patched" and result.diff:
        # Through the one ToolExecutor: journaled (so it shows in the run's diff), atomic.
        applied_result = tools.execute("apply_patch", {"patch": result.diff}, "repair")
        if applied_result.ok:
            applied = list(result.files_changed)
        else:
            status = "error"
    outcome = {"agent": "repair", "status": status, "summary": result.patch_description or result.message,
               "mutants_tried": result.mutants_tried, "elapsed_s": round(result.elapsed_s, 2),
               "files": applied, "edits": len(applied), "reverted": reverted}
    return {"repair_attempted": True, "agent_outcome": outcome}
