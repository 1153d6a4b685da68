"""initialize (engine state Initialize): check the request, load the tool registry, and record the run
in the session's memory."""

from __future__ import annotations

from pathlib import Path

import codur.tools  # noqa: F401  (registers the built-in tools)
from codur.core.contracts import RunStatus
from codur.graph.context import Run
from codur.graph.nodes import node
from codur.graph.state import CodurState
from codur.memory import SessionEntry, tolerant


@node("initialize")
def initialize_node(state: CodurState, ctx: Run) -> dict:
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
    if ctx.memory is not None:  # the run's start, in the session's memory (the engine appends its end)
        start = SessionEntry(run_id=state.get("run_id", ""), task=task, status="running", reason="started")
        tolerant(lambda: ctx.memory.append(ctx.session_id, start), None)
    update = {"repo": str(repo), "task": task, "status": RunStatus.RUNNING.value, "turn": state.get("turn", 0)}
    if ctx.record is not None and not state.get("run_id"):  # a Studio run: its id is its record's
        update["run_id"] = ctx.record.run_id
    return update
