"""initialize (engine state Initialize): check the request, load the tool registry, and record the run
in the session's memory."""

from __future__ import annotations

from pathlib import Path

import codur.tools  # noqa: F401  (registers the built-in tools)
from codur.core.contracts import RunStatus
from codur.core.events import emit
from codur.graph.context import CodurContext
from codur.graph.nodes import node
from codur.graph.state import CodurState
from codur.memory import SessionEntry


@node("initialize")
def initialize_node(state: CodurState, ctx: CodurContext) -> dict:
    """Resolve the repo and validate the task; a bad request ends the run with status error."""
    task = (state.get("task") or "").strip()
    if not task:
        return {"status": RunStatus.ERROR.value, "reason": "the task is empty"}
    if not (state.get("repo") or "").strip():  # never the server's own working directory
        return {"status": RunStatus.ERROR.value,
                "reason": "no repository given: the input needs 'repo', the absolute path of the repository"}
    repo = Path(state["repo"]).expanduser().resolve()
    if not repo.is_dir():
        return {"status": RunStatus.ERROR.value, "reason": f"repository not found: {repo}"}
    if ctx.memory is not None and ctx.session_id:
        remember_start(ctx, state.get("run_id", ""), task)
    return {"repo": str(repo), "task": task, "status": RunStatus.RUNNING.value, "turn": state.get("turn", 0)}


def remember_start(ctx: CodurContext, run_id: str, task: str) -> None:
    """Record in the session's memory that run ``run_id`` started (status ``running``; the engine
    appends its end). A store that fails is said (event ``memory.error``) and the run goes on:
    memory helps the next run, it does not decide this one."""
    try:
        ctx.memory.append(ctx.session_id, SessionEntry(run_id=run_id, task=task, status="running", reason="started"))
    except Exception as exc:  # noqa: BLE001 - sqlite, a database server, a full disk
        emit({"event_type": "memory.error", "error": f"{type(exc).__name__}: {exc}"[:300]})
