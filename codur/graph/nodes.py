"""The node wrapper and the edge guard: events and budget checks in one place.

Every node is a function ``(state, ctx) -> partial update`` wrapped by :func:`node`,
which emits the ``engine.state`` events (``phase`` ``enter`` with the run's status, and
``exit`` with the state's outcome and its seconds: ``{"state": "plan", "status": "success"}``),
checks the run's limits
(:meth:`codur.core.budget.Limits.stop`) before the body runs, and appends the node's
name to ``nodes``. Every edge goes through :func:`guarded`, which routes to
``done`` as soon as a terminal status is in the state.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

try:  # a node with both a sync and an async body; LangGraph has no public name for it
    from langgraph._internal._runnable import RunnableCallable
except ImportError:  # langgraph < 1.0
    from langgraph.utils.runnable import RunnableCallable  # type: ignore[no-redef]

from codur.core.contracts import RunStatus
from codur.core.events import ENGINE_STATES, emit, recording
from codur.core.events.run import EngineState
from codur.graph.context import Run, given_context
from codur.graph.state import CodurState

#: Seconds a cancelled node's thread is given to stop after the cancel event is set.
NODE_STOP_WAIT_S = 10.0
NodeBody = Callable[[CodurState, Run], dict[str, Any]]
#: ``(the runtime's context, state) -> the run object``: :func:`given_context`, or a Studio run's.
ContextSource = Callable[[Any, CodurState], Run]


def is_terminal(state: CodurState) -> bool:
    return state.get("status", RunStatus.RUNNING) != RunStatus.RUNNING


def state_outcome(name: str, state: CodurState, update: dict[str, Any]) -> str:
    """The outcome an ``engine.state`` exit event carries: the terminal status the node set
    (``failed``, ``error``, ``budget_exceeded``...; for ``done`` the run's final status, success
    included), else ``success`` (the state did its work and the run goes on)."""
    status = str(update.get("status") or (state.get("status") if name == "done" else "") or RunStatus.RUNNING)
    return RunStatus.SUCCESS.value if status == RunStatus.RUNNING.value else status


class Node:
    """A node body ``(state, ctx) -> partial update`` with the wrapper: engine.state events,
    budget check, node history. Called as ``node(state, runtime)`` it runs with the run object
    the runtime carries (the engine's); :meth:`runnable` gives the graph's node for a source
    of the run object (:func:`codur.graph.builder.build_graph`)."""

    def __init__(self, name: str, body: NodeBody) -> None:
        self.name, self.body = name, body
        self.__name__, self.__qualname__, self.__doc__ = body.__name__, body.__qualname__, body.__doc__

    def __call__(self, state: CodurState, runtime: Runtime) -> dict[str, Any]:
        return self.run(state, given_context(runtime.context, state))

    def run(self, state: CodurState, ctx: Run) -> dict[str, Any]:
        """The body with the events, the budget check (not for done, nor a run already ended) and
        the node's name appended to ``nodes``; a run that keeps its own record (no engine
        behind it: :class:`codur.graph.record.RunRecord`) writes the events to its trace."""
        with recording(ctx.record.write if ctx.record is not None else None):
            return self._run(state, ctx)

    def _run(self, state: CodurState, ctx: Run) -> dict[str, Any]:
        name = self.name
        stop = None
        if name != "done" and not is_terminal(state):
            stop = ctx.limits.stop(turn=state.get("turn", 0), starting_turn=name == "delegate")
        run_id = state.get("run_id", "")
        entry = {"state": ENGINE_STATES[name], "node": name, "turn": state.get("turn", 0)}
        emit(EngineState(**entry, phase="enter",
                         status=stop.status.value if stop else str(state.get("status", RunStatus.RUNNING))), run_id)
        started = time.monotonic()
        if stop:
            update = stop.update()
        else:
            try:
                update = self.body(state, ctx)
            except BaseException as exc:
                emit(EngineState(**entry, phase="exit", status=RunStatus.ERROR.value,
                                 seconds=round(time.monotonic() - started, 3), error=f"{type(exc).__name__}: {exc}"),
                     run_id)
                raise
        emit(EngineState(**entry, phase="exit", status=state_outcome(name, state, update),
                         seconds=round(time.monotonic() - started, 3)), run_id)
        return {**update, "nodes": [name]}

    def runnable(self, context_of: ContextSource = given_context) -> RunnableCallable:
        """The graph's node: ``context_of(runtime.context, state)`` gives the run object; a sync
        body and an async one (``langgraph dev`` / Studio, ``graph.ainvoke``), whose body runs in
        a thread: when the server cancels the run, the run's cancel event is set, so tools, tests
        and the repair workers stop, and the thread is given a few seconds to end."""

        def run(state: CodurState, runtime: Runtime) -> dict[str, Any]:  # LangGraph injects ``runtime`` by name
            return self.run(state, context_of(runtime.context, state))

        async def arun(state: CodurState, runtime: Runtime) -> dict[str, Any]:
            ctx = await asyncio.to_thread(context_of, runtime.context, state)
            work = asyncio.ensure_future(asyncio.to_thread(self.run, state, ctx))
            try:
                return await asyncio.shield(work)
            except asyncio.CancelledError:
                ctx.limits.cancel.set()
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(work, NODE_STOP_WAIT_S)
                raise

        return RunnableCallable(run, arun, name=self.name)


def node(name: str) -> Callable[[NodeBody], Node]:
    """Wrap a node body as the graph's node ``name`` (see :class:`Node`)."""
    return lambda body: Node(name, body)


def guarded(router: Callable[[CodurState], str]) -> Callable[[CodurState], str]:
    """An edge function that goes to ``done`` once the run has a terminal status."""

    @functools.wraps(router)
    def route(state: CodurState) -> str:
        return "done" if is_terminal(state) else router(state)

    return route
