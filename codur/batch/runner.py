"""The batch loop: start tasks while slots are free and the caps allow, store each result as it comes.

``run_batch`` is the library form of ``codur batch``. It skips the tasks that already have a
result in the store (resume), keeps at most ``pool.slots`` tasks in flight, appends each
finished task's record to the store at once (so a killed batch loses only the tasks in
flight), and checks the global caps before starting each task: once one is reached no task
starts, the running ones finish, and the summary names the cap. A task whose process was
lost or cancelled has no record stored, so a restart runs it again.

Events (:mod:`codur.core.events.batch`) go to ``on_event`` from the calling thread:
``batch.started`` (total, skipped, queued, workers), ``task.started`` (id),
``task.finished`` (record), ``task.lost`` (id, error), ``batch.stopped`` (reason, figures),
``batch.finished`` (the summary's fields), ``batch.model_server`` (url, slots, n_ctx; or error)
when a local batch starts one embedded model server for its workers
(:mod:`codur.batch.model_server`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import statistics
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from codur.batch.model_server import shared_model_server
from codur.batch.paths import checked_path, make_folders
from codur.batch.pools import Pool, default_workers, open_pool
from codur.batch.results import ResultStore
from codur.batch.tasks import BatchTask
from codur.batch.worker import Workspace
from codur.core.events import Event
from codur.core.events.batch import (
    BatchFinished,
    BatchStarted,
    BatchStopped,
    BatchTick,
    TaskFinished,
    TaskLost,
    TaskStarted,
)
from codur.engine.lock import FileLock, LockHeld
from codur.engine.lock import holder_text as _holder

#: How often the loop wakes to report progress while tasks run, seconds.
TICK_S = 1.0
#: The lock file of a batch's working folder (inside it).
WORKDIR_LOCK = ".batch.lock"


class BatchLocked(RuntimeError):
    """Another ``codur batch`` holds the results file or the working folder; the message names
    its pid, host and start, and what to do."""


def hold_batch_lock(folder: Path, name: str, option: str) -> FileLock:
    """Take the lock ``<folder>/<name>`` (created with ``folder``) for this batch, without waiting.

    Args:
        folder: the results file's folder or the working folder; ``name``: the lock file's name;
        option: the option that chooses another one, for the message (``--out``, ``--workdir``).

    Raises:
        BatchLocked: another batch holds it: ``results.jsonl is in use by another codur batch
            (pid 812 on host, since 18:52:01); wait for it to end or give another --out``.
        OSError: the folder cannot be created, or it, a folder above it or the lock file is a link
            (:class:`codur.batch.paths.LinkRefused`; never followed).
    """
    folder = make_folders(checked_path(folder, option), option)
    try:
        return FileLock.acquire(folder / name, what="codur batch")
    except LockHeld as exc:
        what = name.removesuffix(".lock") if name != WORKDIR_LOCK else f"the working folder {folder}"
        raise BatchLocked(f"{what} is in use by another codur batch ({_holder(exc.holder)}); wait for it to end "
                          f"or give another {option}") from None


@dataclass(frozen=True)
class Caps:
    """Global limits of a batch; None is no limit.

    Attributes:
        max_total_tokens: tokens of every stored result of the batch's tasks (earlier runs of a
            resumed batch included).
        max_total_cost: USD, counted the same way.
        max_total_time: seconds since this ``run_batch`` call started.
    """

    max_total_tokens: int | None = None
    max_total_cost: float | None = None
    max_total_time: float | None = None

    def reached(self, tokens: int, cost_usd: float, elapsed_s: float) -> str:
        """The reason a cap stops the batch (e.g. ``max_total_tokens: 1200 tokens >= 1000``), or ''."""
        if self.max_total_tokens is not None and tokens >= self.max_total_tokens:
            return f"max_total_tokens: {tokens} tokens >= {self.max_total_tokens}"
        if self.max_total_cost is not None and cost_usd >= self.max_total_cost:
            return f"max_total_cost: USD {cost_usd:.4f} >= {self.max_total_cost}"
        if self.max_total_time is not None and elapsed_s >= self.max_total_time:
            return f"max_total_time: {elapsed_s:.1f} s >= {self.max_total_time} s"
        return ""


@dataclass(frozen=True)
class BatchSettings:
    """How a batch runs: the options of ``codur batch``.

    Attributes:
        workdir: the folder holding the working copies, ``<workdir>/<id>``; a relative path is taken
            from this process's working directory, made absolute by :func:`run_batch` once, before any
            worker starts (a worker process runs in ``workdir`` itself, a Ray task on another node); one
            batch at a time works in it (an flock on ``<workdir>/.batch.lock`` that names the holder).
        workers: tasks run at once (default: half the cores, at least 1; with Ray ``auto`` or a
            ``ray://`` address, the cluster's CPUs).
        caps: global limits on tokens, cost (USD) and time (seconds); see :class:`Caps`.
        ray: ``local``, ``auto`` or ``ray://HOST:PORT`` to run on Ray (:class:`codur.batch.pools.RayPool`).
        ray_timeout: seconds to wait for the Ray connection (None: :data:`codur.batch.ray_connect.DEFAULT_TIMEOUT_S`).
        in_place: a folder repo is worked on where it is instead of on a copy.
        redo: run the tasks that already have a result too.
        batch: the batch's name, recorded with each task's run (``codur_runs.batch`` in a database).
    """

    workdir: Path
    workers: int | None = None
    caps: Caps = Caps()
    ray: str | None = None
    ray_timeout: float | None = None
    in_place: bool = False
    redo: bool = False
    batch: str = ""

    @property
    def workspace(self) -> Workspace:
        """Where the tasks' working copies go (:attr:`workdir`), as the pools take it."""
        return Workspace(self.workdir, in_place=self.in_place, batch=self.batch)


@dataclass
class BatchSummary:
    """What a batch did, over the last stored record of each of its tasks.

    Attributes:
        total: valid tasks in the task file; ``skipped``: already had a result at the start;
        ran: finished in this call; ``lost``: ended without a result (they run again on restart);
        not_started: left in the queue by a cap; ``solved``: results with status success;
        by_fixer: solved results by the fixer that produced the patch; ``by_status``: results by status;
        median_s: median run time of the results, seconds; ``tokens``, ``cost_usd`` (USD): their sums;
        elapsed_s: this call's wall time, seconds; ``stopped``: the cap that stopped it, '' when none did.
    """

    total: int = 0
    skipped: int = 0
    ran: int = 0
    lost: int = 0
    not_started: int = 0
    solved: int = 0
    by_fixer: dict[str, int] = field(default_factory=dict)
    by_status: dict[str, int] = field(default_factory=dict)
    median_s: float = 0.0
    tokens: int = 0
    cost_usd: float = 0.0
    elapsed_s: float = 0.0
    stopped: str = ""

    @property
    def complete(self) -> bool:
        """Every task has a result."""
        return self.lost == 0 and self.not_started == 0 and self.stopped == ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def summarize(records: Iterable[dict[str, Any]], summary: BatchSummary) -> BatchSummary:
    """Fill ``summary``'s result figures from ``records`` (the last record of each id counts)."""
    last = {str(r["id"]): r for r in records}.values()
    summary.solved = sum(1 for r in last if r.get("solved"))
    summary.by_fixer = dict(Counter(r.get("fixer") or "none" for r in last if r.get("solved")))
    summary.by_status = dict(Counter(str(r.get("status")) for r in last))
    summary.median_s = round(statistics.median([float(r.get("duration_s") or 0) for r in last]), 3) if last else 0.0
    summary.tokens = sum(int(r.get("tokens") or 0) for r in last)
    summary.cost_usd = round(sum(float(r.get("cost_usd") or 0) for r in last), 6)
    return summary


def run_batch(tasks: list[BatchTask], store: ResultStore, settings: BatchSettings, *,
              on_event: Callable[[Event], None] | None = None, pool: Pool | None = None) -> BatchSummary:
    """Run ``tasks`` (each a normal codur run in its own process) and store their records.

    Args:
        tasks: the valid tasks of a task file (:func:`codur.batch.tasks.read_tasks`).
        store: where records go (:func:`codur.batch.results.open_results`); it is not closed here.
        settings: the working folder, workers, caps, Ray and the batch's name (:class:`BatchSettings`).
        on_event: called with each event (see the module's docstring).
        pool: a pool to use instead of opening one (it is closed here too).

    Returns:
        The :class:`BatchSummary`.

    Raises:
        RuntimeError: ``ray`` is given and Ray is missing or cannot connect.
        BatchLocked: another batch works in ``workdir`` (a RuntimeError naming its pid and host).
        codur.batch.paths.LinkRefused: ``workdir`` or a folder above it is a symbolic link.
        KeyboardInterrupt: after the tasks in flight are killed (their records are not stored).
    """
    # once, here: every worker gets this same absolute path, checked to hold no link
    settings = dataclasses.replace(settings, workdir=checked_path(settings.workdir, "--workdir"))
    emit = on_event or (lambda event: None)
    lock = hold_batch_lock(settings.workdir, WORKDIR_LOCK, "--workdir")
    try:
        return _run(tasks, store, settings, emit, pool)
    finally:
        lock.release()


def _run(tasks: list[BatchTask], store: ResultStore, settings: BatchSettings, emit: Callable[[Event], None],
         pool: Pool | None) -> BatchSummary:
    ids = {t.id for t in tasks}
    earlier = [r for r in store.records() if str(r.get("id")) in ids]
    done = set() if settings.redo else {str(r["id"]) for r in earlier}
    queue = deque(t for t in tasks if t.id not in done)
    summary = BatchSummary(total=len(tasks), skipped=len(tasks) - len(queue))
    kept = [r for r in earlier if str(r["id"]) in done]  # the records the caps and the summary count
    with contextlib.ExitStack() as stack:
        workers, workspace = settings.workers, settings.workspace
        if pool is None and not settings.ray and queue:  # local workers share one embedded model server
            env = stack.enter_context(shared_model_server(list(queue), workers or default_workers(), emit))
            pool = open_pool(workers, workspace, env=env)
        pool = pool or open_pool(workers, workspace, ray=settings.ray,
                                 **({"ray_timeout": settings.ray_timeout} if settings.ray_timeout else {}))
        return _loop(queue, pool, settings.caps, kept, summary, store, emit)


def _loop(queue: deque[BatchTask], pool: Pool, caps: Caps, kept: list[dict[str, Any]], summary: BatchSummary,
          store: ResultStore, emit: Callable[[Event], None]) -> BatchSummary:
    started = time.monotonic()
    running: dict[Future[dict[str, Any]], BatchTask] = {}
    emit(BatchStarted(total=summary.total, skipped=summary.skipped, queued=len(queue), workers=pool.slots))
    try:
        while queue or running:
            while queue and len(running) < pool.slots and not summary.stopped:
                s = summarize(kept, BatchSummary())
                summary.stopped = caps.reached(s.tokens, s.cost_usd, time.monotonic() - started)
                if summary.stopped:
                    emit(BatchStopped(reason=summary.stopped, tokens=s.tokens, cost_usd=s.cost_usd,
                                      elapsed_s=round(time.monotonic() - started, 3)))
                    break
                task = queue.popleft()
                running[pool.submit(task)] = task
                emit(TaskStarted(id=task.id, running=len(running), queued=len(queue)))
            if not running:
                break
            finished, _ = wait(running, timeout=TICK_S, return_when=FIRST_COMPLETED)
            for future in finished:
                task = running.pop(future)
                try:
                    record = future.result()
                except Exception as exc:  # noqa: BLE001 - a lost task is reported, the batch goes on
                    summary.lost += 1
                    emit(TaskLost(id=task.id, error=str(exc)[:500]))
                    continue
                if record.get("status") == "cancelled":
                    summary.lost += 1
                    emit(TaskLost(id=task.id, error="cancelled"))
                    continue
                store.append(record)
                kept.append(record)
                summary.ran += 1
                emit(TaskFinished(record=record, running=len(running), queued=len(queue)))
            if not finished:
                emit(BatchTick(running=len(running), queued=len(queue)))
    except BaseException:
        pool.cancel()
        raise
    finally:
        pool.close()
    summary.not_started = len(queue)
    summary.elapsed_s = round(time.monotonic() - started, 3)
    summarize(kept, summary)
    emit(BatchFinished(**summary.as_dict()))
    return summary
