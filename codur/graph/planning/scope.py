"""Which failing tests are about the task: decided once, by the first plan.

The rules (:func:`codur.graph.planning.task.relate`) decide most tasks without a model: a
plain "make the failing tests pass" (every failing test is the task), tests the task names,
tests of a new name, a bug report whose tests use what it names. When they cannot tell (a
change request such as "make passed() raise ValueError for negative scores" in a repo whose
one failing test checks ``passed`` at the pass mark), the planner model decides in one short
call; without a model, or when that call fails, the tests in doubt are *unrelated*: a task
that is not a plain fix is never satisfied by a failing test nobody linked to it.

Event ``plan.scope`` {decided_by, related, unrelated, why, reply}: the decision, in the trace.
"""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage

from codur.core.events import emit
from codur.core.events.plan import PlanScope
from codur.graph.context import Run
from codur.graph.planning.task import read_task, relate
from codur.graph.records import TaskScope
from codur.graph.state import CodurState, observation_of
from codur.graph.task_scope import defined_names
from codur.llm.policy import CallPolicy, with_policy
from codur.llm.replies import json_objects
from codur.testing.ids import file_of
from codur.tools.context import ToolError

#: Failing tests shown to the planner's short call, at most.
MAX_SHOWN = 12
SYSTEM = (
    "You decide whether a task asks for some failing tests to pass. Making an unrelated failing "
    "test pass does not do the task. Answer with one JSON object only: "
    '{"about_task": true or false, "tests": [the ids of the failing tests the task asks to make pass], '
    '"why": "one short sentence"}.')


def decide_scope(state: CodurState, ctx: Run) -> TaskScope:
    """The run's :class:`TaskScope` from observe's failing tests and the task's reading; asks
    the planner model (one call) only when the rules cannot tell and a fixer that calls a model
    is enabled (not in a dry run). Emits ``plan.scope``."""
    obs = observation_of(state)
    tests = obs.tests
    reading = read_task(state.get("task", ""))
    failing = [t for t in (tests.failed if tests else []) if "::" in t or t.endswith(".py")]
    tools = ctx.tools

    def text(rel: str) -> str:
        try:
            return tools.ctx.read_text(rel)
        except ToolError:
            return ""

    if tests is not None and tests.targets:  # observe resolved the tests the task names
        related, unrelated = list(tests.targets), [t for t in failing if t not in tests.targets]
        scope = TaskScope(plain_fix=reading.plain_fix, related=related, unrelated=unrelated, why="the task names them")
    else:
        known: list[set[str]] = []  # the repo's definitions, read once and only when a rule asks

        def defined(name: str) -> bool:
            if not known:
                known.append(defined_names(tools.ctx))
            return name in known[0]

        rel = relate(reading, failing, test_text=text, changed_tests=obs.changed_tests, defined=defined)
        scope = TaskScope(plain_fix=reading.plain_fix, related=list(rel.related), unrelated=list(rel.unrelated),
                          why=rel.why)
        if not rel.decided:
            scope = _undecided(state, ctx, scope, list(rel.undecided))
    reply = scope.why if scope.decided_by == "planner" else ""
    emit(PlanScope(decided_by=scope.decided_by, related=scope.related[:20], unrelated=scope.unrelated[:20],
                   why=scope.why, **({"reply": reply} if reply else {})))
    return scope


def _undecided(state: CodurState, ctx: Run, scope: TaskScope, doubt: list[str]) -> TaskScope:
    """``scope`` with the tests in ``doubt`` decided by the planner, or left unrelated without one."""
    if not ctx.config.model_fixers() or ctx.config.dry_run:
        return scope.model_copy(update={"decided_by": "no_model",
                                        "why": f"{scope.why}; no model may decide: not the task's"})
    obs = observation_of(state)
    report = obs.tests.report if obs.tests else ""
    lines = [f"Task: {state.get('task', '')}", "Failing tests (before any change):",
             *[f"- {t}" for t in doubt[:MAX_SHOWN]]]
    if report:
        lines.append(f"Their failures:\n{report[:1500]}")
    lines.append("Does the task ask for these tests to pass? Answer with the JSON object only.")
    chain = with_policy(ctx.models.models_for("planner"), CallPolicy.for_run(ctx.config, ctx.limits), role="planner")
    try:
        reply = str(chain.invoke([SystemMessage(SYSTEM), HumanMessage("\n".join(lines))]).content)
    except Exception as exc:  # noqa: BLE001 - any model failure: the safe answer, said in the trace
        return scope.model_copy(update={"decided_by": "planner_failed",
                                        "why": f"the planner could not decide ({type(exc).__name__}): not the task's"})
    answer = next((o for o in json_objects(reply) if isinstance(o, dict) and "about_task" in o), None)
    if answer is None:
        return scope.model_copy(update={"decided_by": "planner_failed",
                                        "why": f"the planner's reply is no verdict: {reply.strip()[:120]!r}"})
    named = [t for t in answer.get("tests") or [] if isinstance(t, str)]
    chosen = [t for t in doubt if t in named or file_of(t) in named] if named else list(doubt)
    related = chosen if answer.get("about_task") is True else []
    why = str(answer.get("why") or "")[:200]
    return scope.model_copy(update={
        "related": [*scope.related, *related], "unrelated": [t for t in scope.unrelated if t not in related],
        "decided_by": "planner", "why": f"planner: {'about the task' if related else 'not the task'}: {why}"})
