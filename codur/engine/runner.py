"""run / arun: the typed API around the graph — RunRequest in, RunResult out.

A run gets an id and a folder ``<repo>/.codur/runs/<run_id>/`` holding
``trace.jsonl`` (every event, flushed as it happens), ``diff.patch`` and
``result.json``. The embedded model, when the run started it, is stopped at the end.
Ctrl-C (or SIGTERM) sets the cancel flag: the current model or tool call finishes
(writes are atomic), the next budget check ends the run with status cancelled, and
the result is still written. A second Ctrl-C stops at once.
"""

from __future__ import annotations

import asyncio
import signal
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
from codur.llm.factory import ConfigModelProvider, ModelProvider
from codur.tools.journal import atomic_write_bytes

RECURSION_LIMIT = 200


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

    Raises:
        pydantic.ValidationError: an empty task or a repo path that is not a directory.
        codur.llm.local.LocalModelUnavailable: the embedded model cannot start.
    """
    from codur.graph.builder import build_graph
    from codur.graph.context import CodurContext
    from codur.graph.state import initial_state

    if isinstance(request, str):
        request = RunRequest(task=request, repo=Path(repo or Path.cwd()))
    config = config or CodurConfig()
    updates = {"dry_run": request.dry_run or config.dry_run}
    for key in ("max_turns", "timeout_s", "token_budget"):
        if getattr(request, key) is not None:
            updates[key] = getattr(request, key)
    config = config.model_copy(update=updates)
    run_id = new_run_id()
    run_dir = request.repo / ".codur" / "runs" / run_id
    limits = Limits(max_turns=config.max_turns, timeout_s=config.timeout_s, token_budget=config.token_budget)
    provider = models or ConfigModelProvider(config)
    ctx = CodurContext(config=config, models=provider, limits=limits, run_dir=run_dir, confirm=confirm)
    trace = TraceWriter(run_dir / "trace.jsonl")
    trace.write({"ts": round(time.time(), 3), "event": "run.start", "run_id": run_id, "task": request.task,
                 "repo": str(request.repo)})
    graph = build_graph(checkpointer)
    final: dict[str, Any] = {}
    state = initial_state(request.task, str(request.repo), run_id)
    run_config = {"recursion_limit": RECURSION_LIMIT, "configurable": {"thread_id": run_id}}
    error = ""
    restore_signals = _cancel_on_signals(limits)
    try:
        for mode, chunk in graph.stream(state, run_config, context=ctx, stream_mode=["custom", "values"]):
            if mode == "custom":
                trace.write(chunk)
                if on_event:
                    on_event(chunk)
            else:
                final = chunk
    except KeyboardInterrupt:
        limits.cancel.set()
        final = {**final, "status": RunStatus.CANCELLED.value, "reason": "cancelled (Ctrl-C)"}
    except Exception as exc:  # noqa: BLE001 - the result still says what happened, with the diff so far
        error = f"{type(exc).__name__}: {exc}"
        final = {**final, "status": RunStatus.ERROR.value, "reason": error}
    finally:
        restore_signals()
        if isinstance(provider, ConfigModelProvider) and provider.uses_local_model:
            from codur.llm.local import stop_shared_server

            stop_shared_server()
    journal = ctx.tools(request.repo).journal
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


def _cancel_on_signals(limits: Limits) -> Callable[[], None]:
    """Ctrl-C / SIGTERM set the cancel flag: the current model or tool call finishes, the next
    budget check ends the run with status cancelled, and the result is written as usual.
    A second signal raises KeyboardInterrupt at once. Only in the main thread; returns the
    function that puts the previous handlers back."""
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
