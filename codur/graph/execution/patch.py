"""patch (engine state Act): the candidate-patch pipeline as a graph node.

Runs :class:`codur.patch.PatchPipeline` on the repo without writing it: mutation
search under a time box, model patch samples, mutants of near misses, the rest of the
mutants, all judged by the repair engine's evaluator. A plausible patch is applied
through the ToolExecutor's ``apply_patch``, so it is atomic and journaled and shows in
the run's diff like any other edit; verify then runs. When nothing is plausible the
tool-loop agent takes over with the best near miss as context. When the node runs
after the agent (review's "repair" route) and the agent's edits made no more tests
pass, they are reverted first (from the change journal): the search starts from the
original code, not from a failed attempt.
"""

from __future__ import annotations

import time

from codur.core.contracts import RunStatus
from codur.core.events import emit
from codur.graph.context import CodurContext
from codur.graph.nodes import node
from codur.graph.observe import with_text
from codur.graph.state import AgentOutcome, CodurState, TestRun, observation_of, outcome_of, verdict_of
from codur.graph.task_scope import scope_test_files, task_tests
from codur.graph.verification_agent import is_test_file
from codur.patch import FIXERS, PatchPipeline
from codur.tools.registry import TaskType

PATCH_TASKS = (TaskType.CODE_FIX.value, TaskType.CODE_GENERATION.value)


def target_tests(state: CodurState, ctx: CodurContext) -> list[str]:
    """The failing tests the pipeline works on: observe's (or the last verdict's, when it used
    tests); for a feature task (code_generation) only those that belong to the task
    (:func:`codur.graph.task_scope.task_tests`), never an unrelated failing test."""
    obs, verdict = observation_of(state), verdict_of(state)
    if verdict is not None:
        failing = verdict.failing_tests if verdict.strategy in ("tests", "hybrid") else []
    else:
        failing = obs.tests.failed if obs.tests else []
    if state.get("task_type") != TaskType.CODE_GENERATION.value or not failing:
        return list(failing)
    return task_tests(state.get("task", ""), failing, scope_test_files(state, ctx))


def patch_eligible(state: CodurState, ctx: CodurContext) -> bool:
    """A fix (or feature) task whose tests fail (a feature task: tests that belong to it, see
    :func:`target_tests`), with source files of the repo's own beside the tests, once per run,
    when the pipeline is enabled, and never in a dry or read-only run."""
    c = ctx.config
    if not c.repair or c.dry_run or c.tool_policy == "read_only" or state.get("patch_attempted") \
            or not any(f in c.fixers for f in FIXERS):
        return False
    if state.get("task_type") not in PATCH_TASKS:
        return False
    return bool(target_tests(state, ctx)) and any(not is_test_file(f) for f in observation_of(state).files)


def selection(tests: TestRun | None, select: bool, focus: list[str] | None = None) -> dict:
    """The pipeline's test selection from observe's run: start from ``focus`` (default: its
    failing tests); the tests that failed before any change are known when observe ran the
    whole suite (those outside ``focus`` may still fail)."""
    if not select or tests is None or not tests.failed or tests.exit_code is None:
        return {}
    return {"focus": list(tests.failed if focus is None else focus),
            "failing_before": None if tests.selection else list(tests.failed),
            "suite_s": 0.0 if tests.selection else tests.duration_s}


@node("patch")
def patch_node(state: CodurState, ctx: CodurContext) -> dict:
    """Search for a plausible patch and apply it; then verify runs (or the agent, if none)."""
    tools = ctx.tools(state["repo"])
    tests, verdict = observation_of(state).tests, verdict_of(state)
    baseline = tests.passed_count if tests else 0
    now = verdict.passed_tests if verdict else 0
    reverted = tools.journal.changed_files if tools.journal.changed_files and now <= baseline else []
    if reverted:
        tools.journal.restore()
        emit({"event_type": "patch.reverted", "files": reverted, "passed_before": baseline, "passed_now": now})
    limits, config = ctx.limits, ctx.config
    assert limits is not None and ctx.models is not None
    fixers = tuple(f for f in FIXERS if f in config.fixers)
    def over_budget() -> bool:
        return limits.stop(turn=state.get("turn", 0)) is not None

    models = ctx.models
    # a feature task starts from its own failing tests only: an unrelated one may keep failing
    focus = target_tests(state, ctx) if state.get("task_type") == TaskType.CODE_GENERATION.value else None
    remaining = max(10.0, limits.timeout_s - limits.elapsed_s())
    pipeline = PatchPipeline(
        tools.root, fixers=fixers, models=lambda: models.models_for("actor"),
        failures=tests.report if tests else "",
        workers=config.repair_workers, time_box_s=config.mutation_time_box_s, samples=config.samples,
        deadline=time.monotonic() + min(config.patch_time_budget_s, remaining), cancel=limits.cancel,
        over_budget=over_budget, on_event=emit, max_lines=config.sample_max_lines,
        sample_format=config.sample_format, task=state.get("task", ""), test_cmd=tools.ctx.tests(),
        memory_mb=config.test_memory_mb or None, max_mutants=config.max_mutants, max_pairs=config.max_pairs,
        mutant_timeout_s=config.mutant_timeout_s,
        **selection(tests, config.select_tests, focus))
    result = pipeline.run()
    applied: list[str] = []
    status, summary = result.status, result.label or result.message
    if status == "patched" and result.diff:
        applied_result = tools.execute("apply_patch", {"patch": result.diff}, "patch")
        if applied_result.ok:
            applied = list(result.files or [result.file])
        else:  # e.g. a risky patch the user did not approve (codur.tools.risk)
            status, summary = "error", f"{summary}: {applied_result.output.removeprefix('Error: ')}"
    outcome = AgentOutcome(agent="patch", status=status, source=result.source, summary=summary,
                           provenance=result.provenance, tried=result.tried, elapsed_s=result.elapsed_s,
                           files=applied, edits=len(applied), reverted=reverted)
    update: dict = {"patch_attempted": True, "agent_outcome": outcome,
                    "patch": {"status": status, "near_miss": result.near_miss, "tried": result.tried,
                              "phases": result.phases, "source": result.source, "label": result.label,
                              "provenance": result.provenance, "elapsed_s": result.elapsed_s}}
    if result.suspicious:  # the agent's hints, from this localization (observe leaves them to us)
        update["observation"] = observation_of(state).model_copy(
            update={"suspicious": with_text(tools.ctx, result.suspicious), "functions": result.functions})
    if not applied and state.get("turn", 0) == 0 and "agent" not in config.fixers:
        # a search that could not even set up (the repo's copy, the test runner) says why
        why = f"patch_error: {summary[:300]}" if status == "error" else "no_plausible_patch"
        update.update(status=RunStatus.FAILED.value, reason=why)
    return update


def route_after_patch(state: CodurState) -> str:
    """verify when a patch was applied (or the agent already had its turns); else the
    agent (delegate); done when the node ended the run."""
    outcome = outcome_of(state)
    if (outcome is not None and outcome.status == "patched") or state.get("turn", 0) > 0:
        return "verify"
    return "delegate"
