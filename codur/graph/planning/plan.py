"""plan (engine state Plan): classify the task into a TaskType and choose the agent.

The task is read once (:mod:`codur.graph.planning.task`), and the first plan decides which
failing tests are about it (:mod:`codur.graph.planning.scope`: the rules, else the planner's
short call, else none); "failing tests" below means those. A fast path without a model
handles clear cases (one kind of wording, or failing tests and a fix-like task). The first
plan is made without a model too when no model fixer is enabled, or when the tests fail
and the candidate-patch pipeline can take the task (:func:`skip_planner`): mutation search
starts without waiting for the planner.
When a model is named for the ``planner`` role (a role map's ``planner``, the setting
``roles.planner``: :func:`planner_configured`), the planner answers every first plan in JSON, as
the engine contract says (Plan calls the planner role), except in a dry run, a run that calls no
model, or a first plan that mutation search can take at once (:func:`skip_planner`). Without one,
the fast path above holds (on the embedded model a planner call costs seconds a clear task does
not need: AGENTIC_LOGIC.md, deviations). Otherwise, and on every replan, the planner role's model
(the actor's without one) answers in JSON. A read-only run
(tool policy ``read_only``) of a task that needs an edit ends here, with the plan and a
proposed diff (:mod:`codur.graph.planning.proposal`, reason ``read_only_proposal``). No keyword
ends a run: the plan only classifies.

A model outage does not end the run as an error. When the planner cannot answer (every
profile of its role raised: 429, 500, a timeout, a refused connection, a malformed reply),
the plan falls back to what it knows (the task type so far, else code_fix with failing
tests, else code_generation) and routes as usual, so the patch node's mutation search,
which needs no model, still runs when eligible. On a replan (the last turn failed or changed
nothing) with the planner down too, and the patch node not eligible, the run ends:
``quota_exhausted`` or ``rate_limited`` when the provider said so (a 429), else ``failed``
with reason ``model_unavailable``. After an agent turn that failed on ``insufficient_quota``
the planner is not asked (retrying cannot help).
"""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage

from codur.core.contracts import RunStatus
from codur.core.events import emit
from codur.core.events.plan import PlanFallback
from codur.core.ports import QuotaStatus
from codur.graph.coding_agent import agent_names
from codur.graph.context import Run
from codur.graph.nodes import node
from codur.graph.planning.proposal import read_only_end
from codur.graph.planning.scope import decide_scope
from codur.graph.planning.task import read_task
from codur.graph.prompts import build_system_prompt
from codur.graph.records import PlanInfo
from codur.graph.routing import Route, outage_end, patch_eligible
from codur.graph.state import CodurState, observation_of, outcome_of, plan_of, scope_of
from codur.llm.factory import role_configured
from codur.llm.policy import CallPolicy, with_policy
from codur.llm.quota import quota_from_exception
from codur.llm.replies import json_objects
from codur.tools.registry import TaskType

TASK_TYPES = {t.value for t in TaskType}
#: Task types that need an edit: in a read-only run they end with a proposal (:mod:`.proposal`).
EDIT_TASKS = (TaskType.CODE_FIX, TaskType.CODE_GENERATION, TaskType.REFACTOR, TaskType.DOCUMENTATION,
              TaskType.FILE_OPERATION)


def classify(task: str, failing_tests: bool) -> TaskType | None:
    """The fast path: a TaskType when the task's wording is unambiguous, else None
    (:meth:`codur.graph.planning.task.TaskReading.kind`); ``failing_tests``: tests about the
    task fail (not merely some test)."""
    return read_task(task).kind(failing_tests)


def _ask_planner(state: CodurState, ctx: Run, agents: list[str]) -> dict:
    """The planner's JSON answer, through the model-call policy
    (:mod:`codur.llm.policy`: each call retried, then the role's next profile).

    Raises:
        PlannerUnavailable: every profile failed after its retries (the first error is kept).
        PlannerMalformed: the reply holds no JSON object, or one with an unknown ``task_type``,
            or one with neither a task type nor steps.
    """
    system, _ = build_system_prompt("planner", TaskType.CODE_FIX, agents=agents)
    obs = observation_of(state)
    lines = [f"Task: {state['task']}", f"Files: {', '.join(obs.files[:20])}"]
    if session := state.get("session"):
        lines.insert(1, "Earlier in this session:\n" + "\n".join(session))
    if obs.tests:
        lines.append(f"Tests: {obs.tests.summary}")
    if feedback := state.get("feedback"):
        lines.append(f"The last attempt failed:\n{feedback[:1200]}")
    lines.append("Answer with the JSON object only.")
    chain = with_policy(ctx.models.models_for("planner"), CallPolicy.for_run(ctx.config, ctx.limits), role="planner")
    try:
        reply = chain.invoke([SystemMessage(system), HumanMessage("\n".join(lines))])
    except Exception as exc:  # noqa: BLE001 - any model failure after the policy: the fallback plan
        raise PlannerUnavailable(exc) from exc
    answer = next((o for o in json_objects(str(reply.content)) if isinstance(o, dict)), None)
    task_type = str((answer or {}).get("task_type", "")).lower()
    if answer is None or (task_type and task_type not in TASK_TYPES) or not (task_type or answer.get("steps")):
        raise PlannerMalformed(str(reply.content))  # a replan's answer may give steps alone
    return answer


class PlannerUnavailable(Exception):
    """The planner's model failed (every profile, after the retries); ``error`` is the first error."""

    def __init__(self, error: Exception | None) -> None:
        super().__init__(f"{type(error).__name__}: {error}" if error else "no planner model")
        self.error = error


class PlannerMalformed(Exception):
    """The planner answered, but not with a JSON object naming a known task type."""

    def __init__(self, reply: str) -> None:
        first = (reply.strip().splitlines() or ["(empty reply)"])[0][:120]
        super().__init__(f"malformed planner reply: {first}")


def fallback_task_type(state: CodurState, failing: bool) -> TaskType:
    """The task type without the planner: the one so far, else the fast path's classification,
    else the first kind of wording the task has (code_fix first when tests about the task
    fail), else code_fix when tests about the task fail and code_generation (a change) when
    none do: "log a warning when the score is above 100" is a change, whatever else fails."""
    if state.get("task_type"):
        return TaskType(state["task_type"])
    reading = read_task(state["task"])
    if (fast := reading.kind(failing)) is not None:
        return fast
    if failing and TaskType.CODE_FIX in reading.kinds:
        return TaskType.CODE_FIX
    if reading.kinds and reading.kinds[0] is not TaskType.EXPLANATION:
        return reading.kinds[0]
    return TaskType.CODE_FIX if failing else TaskType.CODE_GENERATION


def planner_configured(ctx: Run) -> bool:
    """Whether the run names a model for the planner role (then every plan asks it) and calls
    models at all (a fixer that calls one is enabled, not a dry run)."""
    return role_configured(ctx.models, "planner") and bool(ctx.config.model_fixers()) and not ctx.config.dry_run


def skip_planner(state: CodurState, ctx: Run, failing: bool) -> bool:
    """Whether the first plan is made without the planner model: when no fixer that calls a
    model is enabled (``CodurConfig.fixers`` holds only ``mutation``), or when the tests fail,
    mutation search is enabled and the candidate-patch pipeline takes the task as classified
    without a model (the cheap fixer starts at once: a model that never answers cannot hold
    it back)."""
    if not ctx.config.model_fixers():
        return True
    if not failing or "mutation" not in ctx.config.fixers:
        return False
    return patch_eligible({**state, "task_type": fallback_task_type(state, failing).value}, ctx)  # type: ignore[typeddict-item]


def _model_plan(state: CodurState, ctx: Run, agents: list[str]) -> tuple[dict, PlanInfo, dict | None]:
    """(answer, plan, outage): the planner's answer; or, when the planner
    failed (model down, malformed reply), an empty answer, a fallback plan keeping the steps
    so far, and for a model outage the run's end if no fixer is left (``plan.fallback`` event)."""
    last = outcome_of(state)
    kept = plan_of(state).steps
    outage: dict | None = None
    if last is not None and last.quota == QuotaStatus.QUOTA_EXHAUSTED.value:  # retrying cannot help: no call
        outage = outage_end(last.quota, last.summary)
        reason = outage["reason"]
    else:
        try:
            answer = _ask_planner(state, ctx, agents)
            return answer, PlanInfo(source="planner", steps=[str(s) for s in answer.get("steps", [])][:6]), None
        except PlannerMalformed as exc:  # the model is up: no outage, the fallback plan routes as usual
            reason = str(exc)
        except PlannerUnavailable as exc:
            quota = quota_from_exception(exc.error).status.value if exc.error else ""
            outage = outage_end(quota, str(exc))
            if stop := ctx.limits.stop(turn=state.get("turn", 0)):
                outage = {"status": stop.status.value, "reason": stop.reason}  # e.g. the call hit the run's deadline
            reason = outage["reason"]
    emit(PlanFallback(status=outage["status"] if outage else RunStatus.RUNNING.value, reason=reason))
    return {}, PlanInfo(source="fallback", steps=kept, model_error=reason), outage


def _planned(state: CodurState, ctx: Run, agents: list[str], *, failing: bool,
             replanning: bool) -> tuple[TaskType, PlanInfo, dict | None]:
    """(task type, plan, outage) from the planner model: its task type, else the fallback's; a
    replan keeps the task type it had; the agent it names when it is one of ``agents``."""
    answer, plan, outage = _model_plan(state, ctx, agents)
    try:
        task_type: TaskType | None = TaskType(str(answer.get("task_type", "")).lower())
    except ValueError:
        task_type = None
    if task_type is None:  # the planner failed, or gave steps alone
        task_type = fallback_task_type(state, failing)
    if replanning and state.get("task_type"):
        # A replan changes the steps, not what the task is: the 1.5B planner turned
        # "make the failing tests pass" into code_validation on a replan, which took
        # the edit tools away and made the run ineligible for repair.
        task_type = TaskType(state["task_type"])
    if answer.get("agent") in agents:
        plan = plan.model_copy(update={"agent": answer["agent"]})
    return task_type, plan, outage


@node("plan")
def plan_node(state: CodurState, ctx: Run) -> dict:
    """Choose task_type and agent; on replan ask the planner model for new steps."""
    agents = agent_names(ctx)
    tests = observation_of(state).tests
    replanning = bool(state.get("feedback"))
    scope = scope_of(state)
    if scope is None and tests is not None and tests.failed and not replanning:
        scope = decide_scope(state, ctx)  # once: which failing tests are the task's
        state = {**state, "scope": scope}  # type: ignore[typeddict-item]
    failing = bool(scope.related) if scope is not None else bool(tests and tests.failed)
    # a planner model named: the contract's Plan asks it, clear wording or not, unless mutation
    # search can start at once (skip_planner: a model that may never answer does not hold it back)
    asked = not replanning and planner_configured(ctx) and not skip_planner(state, ctx, failing)
    fast = None if replanning or asked else classify(state["task"], failing)
    if fast is None and not replanning and not asked and skip_planner(state, ctx, failing):
        fast = fallback_task_type(state, failing)
    plan = PlanInfo()
    task_type = fast
    outage: dict | None = None  # how the run ends if no fixer is left: the model is down
    if fast is None and not ctx.config.dry_run:
        task_type, plan, outage = _planned(state, ctx, agents, failing=failing, replanning=replanning)
    if task_type is None:  # a dry run with no fast path
        task_type = fallback_task_type(state, failing)
    if plan.agent is None:
        plan = plan.model_copy(update={"agent": state.get("agent") or ctx.config.default_agent})
    update: dict = {"task_type": task_type.value, "plan": plan}
    if scope is not None:
        update["scope"] = scope
    if ctx.config.tool_policy == "read_only" and not ctx.config.dry_run and task_type in EDIT_TASKS:
        return {**update, **read_only_end(state, ctx, task_type.value, plan), "route": Route.DONE.value}
    return {**update, **_first_fixer(state, ctx, task_type, outage if replanning else None)}


def _first_fixer(state: CodurState, ctx: Run, task_type: TaskType, outage: dict | None) -> dict:
    """The route to the cheapest fixer first: the candidate-patch pipeline before the tool-loop
    agent; with neither, done: as the model ``outage`` says (a replan's planner was down), else
    ``no_fixer``."""
    if patch_eligible({**state, "task_type": task_type.value}, ctx):  # type: ignore[typeddict-item]
        return {"route": Route.PATCH.value}  # mutation search needs no model: an outage still gets here
    if outage:
        return {"route": Route.DONE.value, **outage}
    if "agent" in ctx.config.fixers:
        return {"route": Route.DELEGATE.value}
    return {"route": Route.DONE.value, "status": RunStatus.FAILED.value, "reason": "no_fixer (the agent is disabled)"}
