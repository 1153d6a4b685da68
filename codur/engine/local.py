"""LocalEngine: runs the compiled graph in this process — the one place that builds a run.

A run gets an id and a folder ``<repo>/.codur/runs/<run_id>/`` (``.codur/`` holds a
``.gitignore`` of ``*``, so git ignores it and the user's ``.gitignore`` is not touched)
holding ``trace.jsonl`` (every event, flushed as it happens), ``diff.patch`` and ``result.json``; a dry run on
a repo it cannot write keeps that folder in the temp dir instead. Runs that write take
the repo lock (:mod:`codur.engine.lock`) and checkpoint every node in
``<repo>/.codur/checkpoints.sqlite`` (LangGraph's SQLite checkpointer, thread id = run
id: :mod:`codur.engine.checkpoints`), so an interrupted run can be resumed from its last
completed node; :mod:`codur.engine.report` makes its result. With the setting
``database_url`` (a PostgreSQL URL) the checkpoints, session memory and a row per run go to
that database instead (:mod:`codur.storage`), so any machine can resume the run.

The graph runs in its own thread; the calling thread waits and takes the signals.
Cancelling — ``RunRequest.cancel_event``, cancelling the :meth:`LocalEngine.execute`
task, Ctrl-C or SIGTERM — sets the run's cancel event: the model call or tool call in
flight is the last one (a running tool process is killed; writes are atomic), the next
budget check ends the run with status ``cancelled``, and the result is written only
after the graph thread has stopped; wherever the cancel found the run, it ends
``cancelled``. A second Ctrl-C, or a graph thread not stopped :data:`CANCEL_GRACE_S` after the
first (a model call that never answers), stops the wait, bounded by :data:`STOP_WAIT_S`.
The embedded model, when the run started it, is stopped at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path
from typing import Any

from codur.config import CodurConfig
from codur.core.codur_folder import LinkedCodurFolder, check_codur_tree
from codur.core.events import TraceWriter, wire
from codur.core.events.run import MemoryFailed, RunEnd, RunResumed, RunReverted, RunStart, StorageFailed
from codur.engine.checkpoints import RECURSION_LIMIT, ResumeError, open_checkpointer, resume_point
from codur.engine.components import EngineComponents, ExecutionEngine
from codur.engine.contracts import RunMetadata, RunRequest, RunResult, RunStatus
from codur.engine.lifecycle import cancel_on_signals, reopen, revert_failed, run_folder, stop_worker, wait_for_graph
from codur.engine.lock import RepoLock, RepoLocked
from codur.engine.report import RunReport, result_json
from codur.engine.resume import save_request, saved_settings
from codur.engine.settings import run_settings
from codur.llm.factory import ConfigModelProvider, ModelProvider
from codur.memory import SessionEntry, summarize_diff
from codur.sandbox.lifetime import sweep
from codur.storage import StorageError, postgres_module
from codur.tools.executor import ToolExecutor
from codur.tools.journal import atomic_write_bytes
from codur.tools.run_folder import ignore_in_git, new_run_id

#: After a second Ctrl-C, how long the tool calls in flight and the graph thread get to stop
#: before the result is written, seconds.
STOP_WAIT_S = 1.0
#: After the first Ctrl-C (or the cancel event), how long the graph thread gets to reach its
#: next check and end, seconds; a node that does not (a streamed reply waiting for its first
#: chunk) is left behind: the tools are stopped and the result written as after a second Ctrl-C.
CANCEL_GRACE_S = 3.0

__all__ = ["LocalEngine", "ExecutionEngine", "new_run_id", "run_folder"]


class LocalEngine:
    """The :class:`ExecutionEngine` that runs codur's graph in this process.

    Args:
        config: settings used when the components carry none (default: from the environment).

    Example::

        engine = LocalEngine()
        result = await engine.execute(RunRequest(input="Hello"), EngineComponents(models=MockProvider(["Hi"])))
    """

    name = "local"

    def __init__(self, config: CodurConfig | None = None) -> None:
        self.config = config

    async def execute(self, request: RunRequest, components: EngineComponents | None = None) -> RunResult:
        """Run ``request`` in a worker thread. Cancelling the awaiting task cancels the run: the
        task waits until the run has stopped and written its result, then raises CancelledError.

        Raises:
            asyncio.CancelledError: the task was cancelled (the run ended ``cancelled``).
        """
        cancel = request.cancel_event or threading.Event()
        request = request.model_copy(update={"cancel_event": cancel})
        loop = asyncio.get_running_loop()
        done: asyncio.Future[RunResult] = loop.create_future()

        def work() -> None:
            try:
                result = self.run(request, components)
                loop.call_soon_threadsafe(lambda: done.done() or done.set_result(result))
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
                error = exc
                loop.call_soon_threadsafe(lambda: done.done() or done.set_exception(error))

        thread = threading.Thread(target=work, name="codur-engine", daemon=True)
        thread.start()
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            cancel.set()
            while thread.is_alive():  # the result is written once every node thread has stopped
                await asyncio.sleep(0.05)
            raise

    def run(self, request: RunRequest, components: EngineComponents | None = None) -> RunResult:
        """Run ``request`` and return what it did (the synchronous form of :meth:`execute`).

        Returns:
            The RunResult; status error with reason ``repo_locked: ...`` (naming the other run's
            pid) when another run holds ``<repo>/.codur/run.lock`` (dry runs take no lock); status
            error with reason ``unsafe_codur_folder: ...`` (naming the link) when ``<repo>/.codur``
            or anything in it is a symbolic link (:mod:`codur.core.codur_folder`): nothing is
            written then.

        Settings: :func:`codur.engine.settings.run_settings` (the components' config, else the
        engine's, else the repo's files and ``CODUR_*`` variables; the request's limits over them).

        Raises:
            codur.config.ConfigError: a setting in a file or a variable does not parse.
            codur.llm.local.LocalModelUnavailable: the embedded model cannot start.
            ResumeError: ``resume`` for a run that has no checkpoint in this repo (a ValueError).
            ValueError: ``components.tools`` works on another folder than the request's repo.
            codur.storage.StorageError: ``database_url`` is set but the database cannot be used
                (not reachable, or ``codur[postgres]`` not installed).
        """
        sweep()  # temporary folders a killed run left behind, a day on
        components = components or EngineComponents()
        config = run_settings(request, components, self.config)
        request = request.model_copy(update={"run_id": request.run_id or new_run_id()})
        run_id = request.run_id
        try:  # a repo that ships .codur as a link, or links inside it: nothing is written through them
            check_codur_tree(request.repo)
        except LinkedCodurFolder as exc:
            return RunResult(run_id=run_id, status=RunStatus.ERROR, reason=f"unsafe_codur_folder: {exc}",
                             metadata=RunMetadata())
        run_dir, note = run_folder(request.repo, run_id, config.dry_run)
        if run_dir.is_relative_to(request.repo):
            with contextlib.suppress(OSError):  # a repo codur cannot write: the run's own failure says so
                ignore_in_git(request.repo)
        lock = None
        if not config.dry_run:  # a dry run changes nothing: it needs no lock
            try:
                lock = RepoLock.acquire(request.repo, run_id)
            except RepoLocked as exc:
                return RunResult(run_id=run_id, status=RunStatus.ERROR, reason=str(exc),
                                 metadata=RunMetadata(run_dir=run_dir))
        try:
            return _Execution(request, config, components, run_dir, note).run()
        finally:
            if lock is not None:
                lock.release()


class _Execution:
    """One run: its services, the graph thread, the result. ``request.run_id`` is set."""

    def __init__(self, request: RunRequest, config: CodurConfig, components: EngineComponents, run_dir: Path,
                 note: str) -> None:
        from codur.graph.context import build_context

        self.request, self.config, self.components = request, config, components
        self.run_id, self.run_dir, self.note = str(request.run_id), run_dir, note
        self.memory = components.memory_for(request, config.database())
        # the session: the request's, else the run alone (its own id), so the store holds every run
        self.session_id = request.session_id or self.run_id
        # the run object, built once: the model provider with the run's one usage ledger, the limits
        # that read it (the run's cancel event), the run's ToolExecutor; handed to the graph as its context
        self.ctx = build_context(request.repo, config, models=components.model_provider(),
                                 cancel=request.cancel_event or threading.Event(), run_dir=run_dir,
                                 confirm=components.policies.confirm, memory=self.memory,
                                 session_id=self.session_id, tools=components.tools)
        self.provider: ModelProvider = self.ctx.models
        self.limits, self.ledger = self.ctx.limits, self.ctx.models.ledger
        self.tools: ToolExecutor = self.ctx.tools
        self.report = RunReport(self.run_id, request, self.limits, self.ledger, run_dir)

    # events -----------------------------------------------------------------------------
    def _on_event(self, event: dict[str, Any]) -> None:
        if not event.get("run_id"):
            event["run_id"] = self.run_id
        self.report.note(event)
        self.trace.write(event)
        if self.components.emitter is not None:
            self.components.emitter(event)

    # the run ----------------------------------------------------------------------------
    def run(self) -> RunResult:
        """Start the trace, open the checkpointer, stream the graph in its thread, write the result."""
        from codur.graph.builder import build_graph
        from codur.graph.state import state_serializer

        request = self.request
        self.trace = TraceWriter(self.run_dir / "trace.jsonl")
        self._on_event(wire(RunStart(task=request.task, repo=str(request.repo), run_dir=str(self.run_dir),
                                     resume=request.resume,
                                     **({"session_id": request.session_id} if request.session_id else {}),
                                     **({"note": self.note} if self.note else {})), self.run_id))
        try:
            checkpointer, closer = open_checkpointer(self.components.checkpointer, self.config, request.repo,
                                                     state_serializer)
        except StorageError:
            self.trace.close()
            raise
        graph = build_graph(checkpointer)
        try:
            graph_input, run_config, resumed_from = self._graph_input(graph)
        except ResumeError:
            if closer is not None:
                closer()
            self.trace.close()
            raise
        if not request.resume and not self.config.dry_run:  # what --resume takes back (engine/resume.py)
            with contextlib.suppress(OSError):  # a run folder that cannot be written: the run says so itself
                save_request(self.run_dir, self.run_id, request.task, self.config, request.session_id)
        self._log_run("started")
        result = self._result(self._stream(graph, graph_input, run_config), resumed_from)
        if checkpointer is not None and result.ok and self.components.checkpointer is None:
            with contextlib.suppress(Exception):  # a finished run needs no resume point; keep the file small
                checkpointer.delete_thread(self.run_id)
        if closer is not None:
            closer()
        self._write_result(result)
        return result

    def _graph_input(self, graph: Any) -> tuple[Any, dict[str, Any], str | None]:
        """(the graph's input, its run config, the checkpoint resumed from): the task's initial state,
        or for ``resume`` the run's last checkpoint (:func:`codur.engine.checkpoints.resume_point`).

        Raises:
            ResumeError: ``resume`` for a run that has no checkpoint in this repo.
        """
        from codur.graph.state import initial_state

        run_config: dict[str, Any] = {"recursion_limit": RECURSION_LIMIT,
                                      "configurable": {"thread_id": self.run_id, "codur_run_id": self.run_id}}
        if not self.request.resume:
            return initial_state(self.request.task, str(self.request.repo), self.run_id), run_config, None
        point = resume_point(graph, run_config, self.request.repo, self.run_id, in_database=self._keeps_in_database())
        put_back = [] if self.config.dry_run else reopen(self.run_dir)  # the run goes on: undo sees its end
        self._on_event(wire(RunResumed(checkpoint=point.checkpoint_id, next=list(point.next), rechecked=point.rechecked,
                                       put_back=put_back), self.run_id))
        return None, point.config, point.checkpoint_id

    def _stream(self, graph: Any, graph_input: Any, run_config: dict[str, Any]) -> dict[str, Any]:
        """Stream the graph in its own thread while this one waits and takes the signals; returns its
        final state (``{}`` when it ended before one), with the status a cancel or an error gave it.
        The tools are stopped after a cancel; the embedded model, when this run started it, at the end."""
        box: dict[str, Any] = {"final": {}}

        def consume() -> None:
            try:
                for mode, chunk in graph.stream(graph_input, run_config, context=self.ctx,
                                                stream_mode=["custom", "values"]):
                    if mode == "custom":
                        self._on_event(chunk)
                    else:
                        box["final"] = chunk
            except KeyboardInterrupt:
                self.limits.cancel.set()
                box["final"] = {**box["final"], "status": RunStatus.CANCELLED.value, "reason": "cancelled"}
            except Exception as exc:  # noqa: BLE001 - the result still says what happened, with the diff so far
                box["final"] = {**box["final"], "status": RunStatus.ERROR.value,
                                "reason": f"{type(exc).__name__}: {exc}"}

        worker = threading.Thread(target=consume, name=f"codur-run-{self.run_id}", daemon=True)
        restore_signals = cancel_on_signals(self.limits)
        try:
            worker.start()
            wait_for_graph(worker, self.limits.cancel, CANCEL_GRACE_S)
        except KeyboardInterrupt:  # a second Ctrl-C: stop now, but not before the tools have
            self.limits.cancel.set()
            if not stop_worker(worker, self.tools, STOP_WAIT_S):
                box["final"] = {**box["final"], "stop": {"graph_thread": f"still running after {STOP_WAIT_S:g}s"}}
        finally:
            restore_signals()
            if isinstance(self.provider, ConfigModelProvider) and self.provider.uses_local_model:
                from codur.llm.local import stop_shared_server

                stop_shared_server()
        if worker.is_alive() or self.limits.cancel.is_set():
            self.tools.stop(STOP_WAIT_S)  # nothing changes the repo through the tools from here on
        return box["final"]

    def _result(self, final: dict[str, Any], resumed_from: str | None) -> RunResult:
        """The run's result from the graph's final state; a failed run's edits put back
        (:func:`codur.engine.lifecycle.revert_failed`, event ``run.reverted``)."""
        journal = self.tools.journal
        breaker = getattr(self.provider, "breaker", None)  # the configured models' (codur.llm.deadline)
        final_result = self.report.result(final, journal, resumed_from, breaker.down() if breaker else None)
        result = revert_failed(final_result, journal, self.run_dir,
                               keep=self.config.keep_failed or self.config.dry_run)
        if result.reverted:
            self._on_event(wire(RunReverted(files=result.files_changed, attempt=str(result.attempt_path)), self.run_id))
        return result

    def _write_result(self, result: RunResult) -> None:
        """Keep the run in the session and the run list, write its manifest (a run that writes),
        ``diff.patch`` and ``result.json``, say ``run.end`` and close the trace."""
        self._remember(result)
        self._log_run("ended", result)
        if not self.config.dry_run:
            self.tools.journal.write_manifest()  # what `codur undo` checks the files against
        # a file name that is not UTF-8 is in the text as surrogate escapes: written back as its bytes
        atomic_write_bytes(self.run_dir / "diff.patch", result.diff.encode("utf-8", "surrogateescape"))
        atomic_write_bytes(self.run_dir / "result.json", result_json(result))
        self._on_event(wire(RunEnd(status=result.status.value, reason=result.reason), self.run_id))
        self.trace.close()

    def _keeps_in_database(self) -> bool:
        """Whether this run's checkpoints are the database's (none given, a database set)."""
        return self.components.checkpointer is None and bool(self.config.database())

    def _log_run(self, what: str, result: RunResult | None = None) -> None:
        """Record the run's start or end in the database's run list (``codur runs --database``),
        when there is a database and the run writes. A database failure is said (event
        ``storage.error``) and the run goes on: its folder keeps the record."""
        url = self.config.database()
        if not url or self.config.dry_run:
            return
        try:
            log = postgres_module().PostgresRunLog(url)
            if result is None:
                meta = self.request.metadata or {}
                log.started(self.run_id, repo=str(self.request.repo), run_dir=str(self.run_dir),
                            task=self.request.task, session_id=self.request.session_id,
                            batch=meta.get("batch") or None, task_id=meta.get("batch_task") or None,
                            settings=saved_settings(self.config))
            else:
                log.ended(self.run_id, result.model_dump(mode="json"))
        except Exception as exc:  # noqa: BLE001 - the run list helps later; it does not decide this run
            failed = StorageFailed(error=f"run list ({what}): {type(exc).__name__}: {exc}"[:300])
            self._on_event(wire(failed, self.run_id))

    def _remember(self, result: RunResult) -> None:
        if self.memory is None:
            return
        entry = SessionEntry(run_id=result.run_id, task=self.request.task, status=result.status.value,
                             reason=result.reason, files_changed=result.files_changed,
                             diff_summary=summarize_diff(result.diff), output_text=result.output_text)
        try:  # as memory.tolerant, said in this run's trace: the graph has ended, the result is still written
            self.memory.append(self.session_id, entry)
        except Exception as exc:  # noqa: BLE001 - any store's failure (a database gone away mid-run)
            self._on_event(wire(MemoryFailed(error=f"{type(exc).__name__}: {exc}"[:300]), self.run_id))

