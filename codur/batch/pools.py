"""Where a batch's tasks run: a pool of processes on this machine, or Ray tasks on a cluster.

Both pools run the same :func:`codur.batch.worker.execute_task` (one ``codur.batch.worker``
process per task) and hand back a ``concurrent.futures.Future`` of its record, so the
batch loop (:mod:`codur.batch.runner`) is one loop for both. Ray is imported only by
:class:`RayPool` (the optional extra ``codur[ray]``).
"""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

from codur.batch.ray_connect import DEFAULT_TIMEOUT_S, connect
from codur.batch.tasks import BatchTask
from codur.batch.worker import Workspace, execute_task, source_path, worker_env
from codur.core import cpu


def default_workers() -> int:
    """Half the cores codur may use (:func:`codur.core.cpu.budget`: affinity and CPU quota), at least 1."""
    return max(1, cpu.budget().cores // 2)


class Pool(Protocol):
    """What the batch loop needs from a pool: ``slots`` tasks run at once."""

    slots: int

    def submit(self, task: BatchTask) -> Future[dict[str, Any]]:
        """Start ``task``; the future gives its record, or raises when the task was lost."""
        ...

    def cancel(self) -> None:
        """Kill the tasks in flight (their futures raise)."""
        ...

    def close(self) -> None:
        """Wait for the pool's threads or disconnect from the cluster."""
        ...


class LocalPool:
    """``workers`` task processes at a time on this machine, each started from a thread.

    Args:
        workers: tasks run at once (>= 1).
        workspace: the folder holding the working copies, whether folder repos are worked on
            where they are, the batch's name recorded with each task's run.
        env: environment variables added to every task process's (the shared model server's URL).
    """

    def __init__(self, workers: int, workspace: Workspace, *, env: dict[str, str] | None = None) -> None:
        self.slots, self.workspace, self.env = workers, workspace, dict(env or {})
        self._threads = ThreadPoolExecutor(workers, thread_name_prefix="codur-batch")
        self._cancel = threading.Event()

    def submit(self, task: BatchTask) -> Future[dict[str, Any]]:
        return self._threads.submit(execute_task, task.model_dump(), self.workspace, self._cancel, self.env)

    def cancel(self) -> None:
        self._cancel.set()

    def close(self) -> None:
        self._threads.shutdown(wait=True, cancel_futures=True)


class RayPool:
    """Each task a Ray task (``num_cpus=1``, no retry) that runs the task's process on its node.

    Args:
        address: ``local`` starts a Ray instance on this machine (``ray.init(num_cpus=workers)``);
            ``auto`` or ``ray://HOST:PORT`` joins an existing cluster (codur installed on its nodes;
            a folder repo and ``workspace.root`` must be paths the nodes can reach, a git URL always is).
        workers: tasks run at once; None: ``default_workers()`` for ``local``, the cluster's CPUs else.
        workspace: as for :class:`LocalPool`.
        timeout_s: seconds to wait for the connection (:func:`codur.batch.ray_connect.connect`).

    When this process is already connected to Ray (``ray.is_initialized()``), that connection is
    used whatever ``address`` says, and :meth:`close` leaves it open.

    Raises:
        RuntimeError: Ray is not installed (``pip install 'codur[ray]'``);
            :class:`codur.batch.ray_connect.RayConnectError` (a RuntimeError): it cannot connect,
            the cause named (network, authentication, timeout).
    """

    def __init__(self, address: str, workers: int | None, workspace: Workspace, *,
                 timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        try:
            import ray
        except ImportError as exc:
            raise RuntimeError("--ray needs Ray: pip install 'codur[ray]'") from exc
        self._ray = ray
        # a source checkout: the Ray workers import this same code (worker_env puts it on PYTHONPATH)
        runtime_env = {"env_vars": {"PYTHONPATH": worker_env()["PYTHONPATH"]}} if source_path() else None
        self._owned = not ray.is_initialized()  # a Ray connection of the caller's is used, and left open
        quiet = {"runtime_env": runtime_env, "log_to_driver": False, "configure_logging": False}
        if self._owned and address == "local":  # started here, in this thread (Ray sets signal handlers)
            workers = workers or default_workers()
            try:
                ray.init(num_cpus=workers, include_dashboard=False, **quiet)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                raise RuntimeError(f"--ray {address}: {exc}") from exc
        elif self._owned:  # a cluster: its token, a timeout of codur's own, the cause named, Ray's banner kept out
            connect(ray, address, timeout_s, **quiet)
        self.slots = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.workspace = workspace
        self._remote = ray.remote(num_cpus=1, max_retries=0)(execute_task)
        self._refs: list[Any] = []

    def submit(self, task: BatchTask) -> Future[dict[str, Any]]:
        ref = self._remote.remote(task.model_dump(), self.workspace, None, None)
        self._refs.append(ref)
        return ref.future()

    def cancel(self) -> None:
        for ref in self._refs:
            with contextlib.suppress(Exception):  # a finished task cannot be cancelled: nothing to do
                self._ray.cancel(ref, force=True)

    def close(self) -> None:
        if self._owned:
            self._ray.shutdown()


def open_pool(workers: int | None, workspace: Workspace, *, ray: str | None = None,
              env: dict[str, str] | None = None, ray_timeout: float = DEFAULT_TIMEOUT_S) -> Pool:
    """A :class:`RayPool` when ``ray`` names an address, else a :class:`LocalPool` of
    ``workers`` (default :func:`default_workers`) with ``env`` added to its task processes',
    both working in ``workspace``; ``ray_timeout`` is the Ray connect timeout, seconds.
    Raises as :class:`RayPool` does."""
    if ray:
        return RayPool(ray, workers, workspace, timeout_s=ray_timeout)
    return LocalPool(workers or default_workers(), workspace, env=env)
