"""run / arun: the typed API around the graph — RunRequest in, RunResult out.

A run gets an id and a folder ``<repo>/.codur/runs/<run_id>/`` holding
``trace.jsonl`` (every event, flushed as it happens), ``diff.patch`` and
``result.json``; a dry run on a repo it cannot write keeps that folder in the temp
dir instead (``RunResult.run_dir``; the trace's ``run.start`` event and a log warning
say why). The embedded model, when the run started it, is stopped at the end.
The graph runs in its own thread; the calling thread waits for it and takes the
signals. Ctrl-C (or SIGTERM) sets the cancel flag: the current model call finishes,
no further tool call starts (a running tool process is killed; writes are atomic),
the next budget check ends the run with status cancelled. A second Ctrl-C stops the
wait: the runner cancels the tools, waits (at most :data:`STOP_WAIT_S`) for the graph
thread, and writes the result last, after which nothing changes the repo through
the tools. One run at a time per repo (:mod:`codur.engine.lock`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from codur.config import CodurConfig
from codur.engine.budget import Limits
from codur.engine.contracts import RunRequest, RunResult, RunStatus
from codur.engine.events import TraceWriter
from codur.engine.lock import RepoLock, RepoLocked
from codur.llm.factory import ConfigModelProvider, ModelProvider
from codur.tools.executor import ToolExecutor
from codur.tools.journal import atomic_write_bytes

RECURSION_LIMIT = 200
#: After a second Ctrl-C (or a graph thread still running), how long the tool calls in flight
#: and the graph thread get to stop before the result is written, seconds.
STOP_WAIT_S = 15.0


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def run(request: RunRequest | str, *, repo: Path | str | None = None, config: CodurConfig | None = None,
        models: ModelProvider | None = None, on_event: Callable[[dict], None] | None = None,
        checkpointer: Any = None, confirm: Callable[[str, dict], bool] | None = None) -> RunResult:
    """Run codur on a repo and return what it did.

    Args:
        request: a RunRequest, or the task text (then ``repo`` gives the path).
        config: settings (default: from the environment).
        models: chat models per role (default: from config; tests pass StaticModelProvider).
        on_event: called with every trace event as it happens (the CLI prints them).
        checkpointer: a LangGraph checkpointer for resumable runs (thread_id = run_id).
        confirm: asked before writes when the tool policy is confirm_writes.

    Returns:
        The RunResult; status error with reason ``repo_locked: ...`` (naming the other run's
        pid) when another run holds ``<repo>/.codur/run.lock`` (dry runs take no lock).

    Raises:
        pydantic.ValidationError: an empty task or a repo path that is not a directory.
        codur.llm.local.LocalModelUnavailable: the embedded model cannot start.
    """
    if isinstance(request, str):
        request = RunRequest(task=request, repo=Path(repo or Path.cwd()))
    config = config or CodurConfig()
    updates = {"dry_run": request.dry_run or config.dry_run}
    for key in ("max_turns", "timeout_s", "token_budget"):
        if getattr(request, key) is not None:
            updates[key] = getattr(request, key)
    config = config.model_copy(update=updates)
    run_id = new_run_id()
    run_dir, note = run_folder(request.repo, run_id, config.dry_run)
    lock = None
    if not config.dry_run:  # a dry run changes nothing: it needs no lock
        try:
            lock = RepoLock.acquire(request.repo, run_id)
        except RepoLocked as exc:
            return RunResult(run_id=run_id, status=RunStatus.ERROR, reason=str(exc), run_dir=run_dir)
    try:
        return _run(request, config, run_id, run_dir, models, on_event, checkpointer, confirm, note)
    finally:
        if lock is not None:
            lock.release()


def run_folder(repo: Path, run_id: str, dry_run: bool) -> tuple[Path, str]:
    """(the run's folder, a note): ``<repo>/.codur/runs/<run_id>``, created; for a dry run on a
    repo that cannot take it (read-only, ``.codur`` not a folder) a new folder in the temp dir,
    with the note saying why. A real run's folder is created later (its failure is the run's)."""
    run_dir = repo / ".codur" / "runs" / run_id
    if not dry_run:
        return run_dir, ""
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        if os.access(run_dir, os.W_OK):
            return run_dir, ""
        problem = "not writable"
    except OSError as exc:
        problem = f"{type(exc).__name__}: {exc.strerror or exc}"
    elsewhere = Path(tempfile.mkdtemp(prefix=f"codur-run-{run_id}-"))
    note = f"the repo cannot hold the run's folder ({run_dir}: {problem}); this dry run's folder is {elsewhere}"
    logging.getLogger("codur").warning(note)
    return elsewhere, note


def _run(request: RunRequest, config: CodurConfig, run_id: str, run_dir: Path, models: ModelProvider | None,
         on_event: Callable[[dict], None] | None, checkpointer: Any,
         confirm: Callable[[str, dict], bool] | None, note: str = "") -> RunResult:
    """The run itself, with the repo locked: the graph in its own thread, the result written last."""
    from codur.graph.builder import build_graph
    from codur.graph.context import CodurContext
    from codur.graph.state import initial_state

    limits = Limits(max_turns=config.max_turns, timeout_s=config.timeout_s, token_budget=config.token_budget)
    provider = models or ConfigModelProvider(config)
    ctx = CodurContext(config=config, models=provider, limits=limits, run_dir=run_dir, confirm=confirm)
    tools = ctx.tools(str(request.repo))  # the run's one executor (bound to the run's cancel event)
    trace = TraceWriter(run_dir / "trace.jsonl")
    trace.write({"ts": round(time.time(), 3), "event": "run.start", "run_id": run_id, "task": request.task,
                 "repo": str(request.repo), "run_dir": str(run_dir), **({"note": note} if note else {})})
    graph = build_graph(checkpointer)
    state = initial_state(request.task, str(request.repo), run_id)
    run_config = {"recursion_limit": RECURSION_LIMIT, "configurable": {"thread_id": run_id}}
    box: dict[str, Any] = {"final": {}}

    def consume() -> None:
        try:
            for mode, chunk in graph.stream(state, run_config, context=ctx, stream_mode=["custom", "values"]):
                if mode == "custom":
                    trace.write(chunk)
                    if on_event:
                        on_event(chunk)
                else:
                    box["final"] = chunk
        except KeyboardInterrupt:
            limits.cancel.set()
            box["final"] = {**box["final"], "status": RunStatus.CANCELLED.value, "reason": "cancelled (Ctrl-C)"}
        except Exception as exc:  # noqa: BLE001 - the result still says what happened, with the diff so far
            error = f"{type(exc).__name__}: {exc}"
            box["final"] = {**box["final"], "status": RunStatus.ERROR.value, "reason": error}

    worker = threading.Thread(target=consume, name=f"codur-run-{run_id}", daemon=True)
    restore_signals = _cancel_on_signals(limits)
    try:
        worker.start()
        while worker.is_alive():
            worker.join(0.1)  # short waits: the main thread keeps taking signals
    except KeyboardInterrupt:  # a second Ctrl-C: stop now, but not before the tools have
        box["final"] = {**box["final"], "status": RunStatus.CANCELLED.value, "reason": "cancelled (Ctrl-C)"}
        if not _stop(worker, tools, STOP_WAIT_S):
            box["final"]["reason"] += f"; the graph thread was still running after {STOP_WAIT_S:g}s"
    finally:
        restore_signals()
        if isinstance(provider, ConfigModelProvider) and provider.uses_local_model:
            from codur.llm.local import stop_shared_server

            stop_shared_server()
    if worker.is_alive() or limits.cancel.is_set():
        tools.stop(STOP_WAIT_S)  # nothing changes the repo through the tools from here on
    final = box["final"]
    journal = tools.journal
    result = RunResult(
        run_id=run_id, status=RunStatus(final.get("status", RunStatus.ERROR.value)),
        reason=final.get("reason", ""), diff=journal.diff(), files_changed=journal.changed_files,
        nodes=final.get("nodes", []), turns=final.get("turn", 0), llm_calls=final.get("llm_calls", 0),
        tokens=final.get("tokens", 0), cost_usd=_cost(provider), duration_s=limits.elapsed_s(),
        verification=final.get("verification", {}), summary=final.get("summary", ""), run_dir=run_dir,
    )
    if result.status is RunStatus.RUNNING:
        result = result.model_copy(update={"status": RunStatus.ERROR, "reason": "the graph stopped before done"})
    atomic_write_bytes(run_dir / "diff.patch", result.diff.encode())
    atomic_write_bytes(run_dir / "result.json", result.model_dump_json(indent=2).encode())
    trace.write({"ts": round(time.time(), 3), "event": "run.end", "run_id": run_id, "status": result.status.value,
                 "reason": result.reason})
    trace.close()
    return result


def _stop(worker: threading.Thread, tools: ToolExecutor, timeout_s: float) -> bool:
    """Cancel the tools (no call starts, running processes are killed), then wait up to
    ``timeout_s`` seconds for the graph thread to end; a further Ctrl-C ends the wait.
    True when the thread has ended."""
    deadline = time.monotonic() + timeout_s
    try:
        tools.stop(timeout_s)
        while worker.is_alive() and time.monotonic() < deadline:
            worker.join(0.1)
    except KeyboardInterrupt:
        pass
    return not worker.is_alive()


def _cancel_on_signals(limits: Limits) -> Callable[[], None]:
    """Ctrl-C / SIGTERM set the cancel flag: the current model call finishes, no tool call
    starts any more, the next budget check ends the run with status cancelled, and the result
    is written as usual. A second signal raises KeyboardInterrupt in the waiting (main) thread,
    which then stops the tools and waits, bounded, for the graph thread. Only in the main
    thread; returns the function that puts the previous handlers back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum: int, frame: object) -> None:
        if limits.cancel.is_set():
            raise KeyboardInterrupt
        limits.cancel.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    return lambda: [signal.signal(sig, old) for sig, old in previous.items()] and None


def _cost(provider: ModelProvider) -> float:
    """USD spent, from the provider's usage meter (every model call, priced per profile);
    0.0 for providers without one (scripted models)."""
    meter = getattr(provider, "meter", None)
    return round(meter.usage.cost_usd, 6) if meter is not None else 0.0


async def arun(request: RunRequest | str, **kwargs: Any) -> RunResult:
    """:func:`run` in a worker thread, for asyncio callers. Same arguments and errors."""
    return await asyncio.to_thread(run, request, **kwargs)
