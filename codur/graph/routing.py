"""The graph's routes: every edge function returns a node name (:class:`Route`), and the rules
more than one node reads to choose one (:func:`patch_eligible`, :func:`outage_end`).

Node modules import these; no node module imports another for a helper.
"""

from __future__ import annotations

from enum import StrEnum

from codur.core.contracts import PIPELINE_FIXERS, PatchStatus, RunStatus
from codur.core.ports import QuotaStatus
from codur.graph.context import Run
from codur.graph.planning.task import read_task
from codur.graph.state import CodurState, observation_of, outcome_of, scope_of, verdict_of
from codur.graph.task_scope import scope_test_files, task_tests
from codur.testing.ids import is_test_file
from codur.tools.registry import TaskType

PATCH_TASKS = (TaskType.CODE_FIX.value, TaskType.CODE_GENERATION.value)
OUTAGE_STATUS = {QuotaStatus.QUOTA_EXHAUSTED.value: RunStatus.QUOTA_EXHAUSTED,
                 QuotaStatus.RATE_LIMITED.value: RunStatus.RATE_LIMITED}


class Route(StrEnum):
    """Where a conditional edge goes: the name of a node (``state["route"]`` holds one)."""

    DELEGATE = "delegate"  # the agent's turn (plan's route to the agent; review's retry)
    PATCH = "patch"  # the candidate-patch pipeline (plan's route; review's repair)
    PLAN = "plan"  # review's replan
    VERIFY = "verify"  # after a patch was applied
    DONE = "done"


#: review's retry strategy after an agent turn without progress (``state["retry"]``): the
#: delegate node reverts the earlier turns' edits, the prompt says what was tried.
FRESH = "fresh_retry"


def route_after_plan(state: CodurState) -> Route:
    """The plan's route: patch (the candidate-patch pipeline) or delegate (the agent)."""
    return Route.PATCH if state.get("route") == Route.PATCH else Route.DELEGATE


def route_after_review(state: CodurState) -> Route:
    """Review's route: the node it named (delegate, plan or patch), else done."""
    route = state.get("route")
    return Route(route) if route in (Route.DELEGATE, Route.PLAN, Route.PATCH) else Route.DONE


def route_after_patch(state: CodurState) -> Route:
    """verify when a patch was applied (or the agent already had its turns); else the
    agent (delegate); done when the node ended the run (see :func:`codur.graph.nodes.guarded`)."""
    outcome = outcome_of(state)
    if (outcome is not None and outcome.status == PatchStatus.PATCHED) or state.get("turn", 0) > 0:
        return Route.VERIFY
    return Route.DELEGATE


def target_tests(state: CodurState, ctx: Run) -> list[str]:
    """The failing tests the pipeline works on: observe's (or the last verdict's, when it used
    tests and did not refuse the change: an edited test may pass), never one the plan found
    unrelated to the task (:class:`codur.graph.records.TaskScope`); without the plan's scope, for
    a feature task (code_generation) only those that belong to the task
    (:func:`codur.graph.task_scope.task_tests`)."""
    obs, verdict = observation_of(state), verdict_of(state)
    if verdict is not None and not verdict.refused:
        failing = verdict.failing_tests if verdict.strategy in ("tests", "hybrid") else []
    else:
        failing = obs.tests.failed if obs.tests else []
    if (scope := scope_of(state)) is not None:
        unrelated = set(scope.unrelated)
        return [t for t in failing if t not in unrelated]
    if state.get("task_type") != TaskType.CODE_GENERATION.value or not failing:
        return list(failing)
    return task_tests(state.get("task", ""), failing, scope_test_files(state, ctx))


def patch_eligible(state: CodurState, ctx: Run) -> bool:
    """A fix (or feature) task whose tests fail (a feature task: tests that belong to it, see
    :func:`target_tests`), with source files of the repo's own beside the tests, once per run,
    when the pipeline is enabled, and never in a dry or read-only run, nor for a task that calls
    code intended or asks to change tests (:attr:`codur.graph.planning.task.TaskReading.keeps_code`:
    the code-only fixers would change what the user keeps)."""
    c = ctx.config
    if not c.repair or c.dry_run or c.tool_policy == "read_only" or state.get("patch_attempted") \
            or not any(f in c.fixers for f in PIPELINE_FIXERS):
        return False
    if state.get("task_type") not in PATCH_TASKS or read_task(state.get("task", "")).keeps_code:
        return False
    return bool(target_tests(state, ctx)) and any(not is_test_file(f) for f in observation_of(state).files)


def outage_end(quota: str, message: str) -> dict:
    """Status and reason of a run that ends because its model is down: ``quota_exhausted`` or
    ``rate_limited`` when the provider said so (``quota``: a QuotaStatus value), else
    ``failed`` with reason ``model_unavailable``; the reason quotes the error's first line."""
    first = (message.strip().splitlines() or [""])[0][:300]
    status = OUTAGE_STATUS.get(quota)
    if status is None:
        return {"status": RunStatus.FAILED.value, "reason": f"model_unavailable ({first})"}
    return {"status": status.value, "reason": f"{status.value} ({first})"}
