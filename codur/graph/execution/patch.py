"""patch (engine state Act): the candidate-patch pipeline as a graph node.

Runs :class:`codur.patch.PatchPipeline` on the repo without writing it: mutation
search under a time box, model patch samples, mutants of near misses, the rest of the
mutants, all judged by the repair engine's evaluator. A plausible patch is applied
through the ToolExecutor's ``apply_patch``, so it is atomic and journaled and shows in
the run's diff like any other edit; verify then runs. When nothing is plausible the
tool-loop agent takes over with the best near miss as context. When the node runs
after the agent (review's "repair" route) and the agent's edits made no more tests
pass, or were refused (``Verdict.refused``: a test edited, a function emptied), they are
reverted first (from the change journal): the search starts from the original code, not
from a failed attempt. The candidates the search refused (:mod:`codur.validate.footprint`)
are kept in the state's :class:`codur.patch.contracts.PatchOutcome` (``refused``) for the summary, and
why a search that found nothing stopped (:class:`codur.patch.contracts.SearchEnd`) in its ``end``: a run
it ends ``no_plausible_patch`` gives it in its result (``metadata.stop["search"]``).
"""

from __future__ import annotations

import time

from codur.core.contracts import PatchStatus, RunStatus
from codur.core.events import emit
from codur.core.events.patch import PatchReverted
from codur.graph.context import Run
from codur.graph.nodes import node
from codur.graph.records import AgentOutcome, TestObservation
from codur.graph.routing import target_tests
from codur.graph.state import CodurState, observation_of, verdict_of
from codur.graph.suspects import with_text
from codur.patch import PatchPipeline, PatchSettings
from codur.patch.contracts import PatchOutcome
from codur.tools.registry import TaskType


def selection(tests: TestObservation | None, select: bool, focus: list[str] | None = None) -> dict:
    """The pipeline's test selection from observe's run: start from ``focus`` (default: the
    failing tests the task names, else all its failing tests); the tests that failed before any
    change are known when observe ran the whole suite (those outside ``focus`` may still fail)."""
    if not select or tests is None or not tests.failed or tests.exit_code is None:
        return {}
    return {"focus": list((tests.targets or tests.failed) if focus is None else focus),
            "failing_before": None if tests.selection else list(tests.failed),
            "suite_s": 0.0 if tests.selection else tests.duration_s}


@node("patch")
def patch_node(state: CodurState, ctx: Run) -> dict:
    """Search for a plausible patch and apply it; then verify runs (or the agent, if none)."""
    tools = ctx.tools
    tests, verdict = observation_of(state).tests, verdict_of(state)
    baseline = tests.passed_count if tests else 0
    now = verdict.passed_tests if verdict else 0
    refused = verdict is not None and verdict.refused
    reverted = tools.journal.changed_files if tools.journal.changed_files and (now <= baseline or refused) else []
    if reverted:
        tools.journal.restore()
        emit(PatchReverted(files=reverted, passed_before=baseline, passed_now=now))
    limits, config = ctx.limits, ctx.config

    def over_budget() -> bool:
        return limits.stop(turn=state.get("turn", 0)) is not None

    models = ctx.models
    # a feature task starts from its own failing tests only: an unrelated one may keep failing
    focus = target_tests(state, ctx) if state.get("task_type") == TaskType.CODE_GENERATION.value else None
    remaining = max(10.0, limits.timeout_s - limits.elapsed_s())
    pipeline = PatchPipeline(
        tools.root, PatchSettings.from_config(config), models=lambda: models.models_for("actor"),
        failures=tests.report if tests else "", task=state.get("task", ""), test_cmd=tools.ctx.tests(),
        deadline=time.monotonic() + min(config.patch_time_budget_s, remaining), cancel=limits.cancel,
        over_budget=over_budget, on_event=emit, policy=tools.test_policy(),
        **selection(tests, config.select_tests, focus))
    result = pipeline.run()
    models.ledger.spent("repair_s", result.elapsed_s)  # the search's seconds: the run's repair time
    applied: list[str] = []
    status, summary = result.status, result.label or result.message
    if status is PatchStatus.PATCHED and result.diff:
        applied_result = tools.execute("apply_patch", {"patch": result.diff}, "patch")
        if applied_result.ok:
            applied = list(result.files or [result.file])
        else:  # e.g. a risky patch the user did not approve (codur.tools.risk)
            status, summary = PatchStatus.ERROR, f"{summary}: {applied_result.output.removeprefix('Error: ')}"
    outcome = AgentOutcome(agent="patch", status=status.value, source=result.source, summary=summary,
                           provenance=result.provenance, tried=result.tried, elapsed_s=result.elapsed_s,
                           files=applied, edits=len(applied), reverted=reverted)
    update: dict = {"patch_attempted": True, "agent_outcome": outcome,
                    "patch": PatchOutcome.from_result(result, status)}
    if result.suspicious:  # the agent's hints, from this localization (observe leaves them to us)
        update["observation"] = observation_of(state).model_copy(
            update={"suspicious": with_text(tools.ctx, result.suspicious), "functions": result.functions})
    if not applied and state.get("turn", 0) == 0 and "agent" not in config.fixers:
        # a search that could not even set up (the repo's copy, the test runner) says why
        why = f"patch_error: {summary[:300]}" if status is PatchStatus.ERROR else "no_plausible_patch"
        update.update(status=RunStatus.FAILED.value, reason=why)
    return update
