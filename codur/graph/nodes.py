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

from codur.core.contracts import RunStatus
from codur.core.events import ENGINE_STATES, emit
from codur.graph.context import CodurContext, get_context
from codur.graph.state import CodurState

#: Seconds a cancelled node's thread is given to stop after the cancel event is set.
NODE_STOP_WAIT_S = 10.0
NodeBody = Callable[[CodurState, CodurContext], dict[str, Any]]


def is_terminal(state: CodurState) -> bool:
    return state.get("status", RunStatus.RUNNING) != RunStatus.RUNNING


def state_outcome(name: str, state: CodurState, update: dict[str, Any]) -> str:
    """The outcome an ``engine.state`` exit event carries: the terminal status the node set
    (``failed``, ``error``, ``budget_exceeded``...; for ``done`` the run's final status, success
    included), else ``success`` (the state did its work and the run goes on)."""
    status = str(update.get("status") or (state.get("status") if name == "done" else "") or RunStatus.RUNNING)
    return RunStatus.SUCCESS.value if status == RunStatus.RUNNING.value else status


def node(name: str) -> Callable[[NodeBody], Callable[[CodurState, Runtime], dict[str, Any]]]:
    """Wrap a node body: engine.state event, budget check, node history."""

    def decorate(body: NodeBody) -> Callable[[CodurState, Runtime], dict[str, Any]]:
        def run(state: CodurState, runtime: Runtime) -> dict[str, Any]:
            ctx = get_context(runtime, state)
            stop = None
            if name != "done" and not is_terminal(state):
                assert ctx.limits is not None
                stop = ctx.limits.stop(turn=state.get("turn", 0), starting_turn=name == "delegate")
            entry = {"event_type": "engine.state", "run_id": state.get("run_id", ""), "state": ENGINE_STATES[name],
                     "node": name, "turn": state.get("turn", 0)}
            emit({**entry, "phase": "enter",
                  "status": stop.status.value if stop else str(state.get("status", RunStatus.RUNNING))})
            started = time.monotonic()
            if stop:
                update = stop.update()
            else:
                try:
                    update = body(state, ctx)
                except BaseException as exc:
                    emit({**entry, "phase": "exit", "status": RunStatus.ERROR.value,
                          "seconds": round(time.monotonic() - started, 3), "error": f"{type(exc).__name__}: {exc}"})
                    raise
            emit({**entry, "phase": "exit", "status": state_outcome(name, state, update),
                  "seconds": round(time.monotonic() - started, 3)})
            return {**update, "nodes": [name]}

        async def arun(state: CodurState, runtime: Runtime) -> dict[str, Any]:
            """The node on an event loop (``langgraph dev`` / Studio, ``graph.ainvoke``): the body runs
            in a thread; when the server cancels the run, the run's cancel event is set, so tools,
            tests and the repair workers stop, and the thread is given a few seconds to end."""
            work = asyncio.ensure_future(asyncio.to_thread(run, state, runtime))
            try:
                return await asyncio.shield(work)
            except asyncio.CancelledError:
                limits = get_context(runtime, state).limits
                if limits is not None:
                    limits.cancel.set()
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(work, NODE_STOP_WAIT_S)
                raise

        # Not functools.wraps: LangGraph reads the signature to inject ``runtime``.
        for fn in (run, arun):
            fn.__name__, fn.__qualname__, fn.__doc__ = body.__name__, body.__qualname__, body.__doc__
        run.body = body  # type: ignore[attr-defined]
        run.arun = arun  # type: ignore[attr-defined]
        return run

    return decorate


def guarded(router: Callable[[CodurState], str]) -> Callable[[CodurState], str]:
    """An edge function that goes to ``done`` once the run has a terminal status."""

    @functools.wraps(router)
    def route(state: CodurState) -> str:
        return "done" if is_terminal(state) else router(state)

    return route
