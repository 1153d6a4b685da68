"""build_graph(): codur's one graph — engine states and execution nodes together.

    START → initialize → observe → plan ─┬─► delegate → execute → verify → review ─┬─► done → END
                                         │                                         ├─ retry  → delegate
                                         └─► patch ─┬─► verify (a patch applied)    ├─ replan → plan
                                                    └─► delegate (none: the agent)  └─ repair → patch

A fix task with failing tests goes from plan to patch: the candidate-patch pipeline
(mutation search, model samples, mutants of near misses) before the tool-loop agent.

Every edge is guarded: a terminal status in the state (a budget, a cancel, an
error) routes to ``done`` from wherever the run is. ``recursion_limit`` belongs to
the run config (see codur.engine.checkpoints.RECURSION_LIMIT), not to ``compile()``.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from codur.graph.context import StudioRun, StudioSettings, given_context
from codur.graph.done import done_node
from codur.graph.execution.delegate import delegate_node
from codur.graph.execution.execute import execute_node
from codur.graph.execution.patch import patch_node
from codur.graph.execution.review import review_node
from codur.graph.execution.verification_agent import verification_agent_node
from codur.graph.initialize import initialize_node
from codur.graph.nodes import ContextSource, guarded
from codur.graph.observe import observe_node
from codur.graph.planning.plan import plan_node
from codur.graph.routing import Route, route_after_patch, route_after_plan, route_after_review
from codur.graph.state import CodurInput, CodurState


def _to(target: str):
    return guarded(lambda _state: target)


def build_graph(checkpointer: Checkpointer = None, *, name: str = "codur", context_of: ContextSource = given_context):
    """Compile codur's graph.

    Args:
        checkpointer: e.g. a LangGraph SqliteSaver for resumable runs; None for Studio.
        name: the compiled graph's name.
        context_of: ``(the runtime's context, state) -> Run``, the run object every node
            gets; default: the :class:`Run` passed as ``context`` (the engine's).

    Returns:
        A compiled LangGraph graph with state :class:`CodurState`; its context is a
        :class:`Run` (the engine's) or a :class:`StudioSettings` dict of settings.
    """
    builder = StateGraph(CodurState, input_schema=CodurInput, context_schema=StudioSettings)
    for name_, fn in [("initialize", initialize_node), ("observe", observe_node), ("plan", plan_node),
                      ("delegate", delegate_node), ("execute", execute_node), ("verify", verification_agent_node),
                      ("review", review_node), ("patch", patch_node), ("done", done_node)]:
        builder.add_node(name_, fn.runnable(context_of))  # sync and async: see nodes.Node.runnable
    builder.add_edge(START, "initialize")
    for src, dst in [("initialize", "observe"), ("observe", "plan"), ("delegate", "execute"), ("execute", "verify"),
                     ("verify", "review")]:
        builder.add_conditional_edges(src, _to(dst), [dst, "done"])
    builder.add_conditional_edges("plan", guarded(route_after_plan), [Route.DELEGATE, Route.PATCH, Route.DONE])
    builder.add_conditional_edges("patch", guarded(route_after_patch), [Route.VERIFY, Route.DELEGATE, Route.DONE])
    builder.add_conditional_edges("review", guarded(route_after_review),
                                  [Route.DONE, Route.DELEGATE, Route.PLAN, Route.PATCH])
    builder.add_edge("done", END)
    return builder.compile(checkpointer=checkpointer, name=name)


def studio_graph() -> CompiledStateGraph:
    """The graph ``langgraph dev`` serves (langgraph.json names this factory, which the server
    calls for each run): its nodes share one run object, built by the run's first node from
    the run's settings (a :class:`StudioSettings`) and the state's repo (:class:`StudioRun`)."""
    return build_graph(context_of=StudioRun())
