"""The CPU budget: how many processes codur runs at once, from the cores it may use.

One place answers every question of parallelism (AGENTIC_LOGIC.md, "One CPU budget"):

- **the cores codur may use** (:func:`usable_cores`): the CPUs of its affinity mask
  (``os.sched_getaffinity``), cut to a cgroup's CPU quota when it has one (v2 ``cpu.max``,
  v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``), rounded up as the JVM and Go runtimes do
  (a quota of 1.5 CPUs is 2 processes that are throttled a little, not 1 that leaves half
  a core unused);
- **the embedded model's threads** (:func:`model_threads`): llama.cpp's threads, at most half
  the cores past two, so test workers keep the rest;
- **test runs at once** (:meth:`CpuBudget.test_slots`): while the embedded model generates
  (a model call in flight, :meth:`CpuBudget.generating`, entered around every call to it),
  the cores its threads leave; else every core.

llama.cpp's threads wait for each other at every step of a token by spinning; a process on a
core they use makes one of them miss a scheduler tick at each wait. Measured on 2 cores with 2
model threads (bench/cpu, a real bug of cachetools): with one mutant at a time tested beside the
model, the model's first sample took 30-38 s instead of 9-12 s alone, and codur's process (the
model's threads) got 1.15-1.4 cores instead of 1.8-2.0. Started at ``SCHED_IDLE`` the mutants
took as much (32 s, 1.36-1.4 cores): the scheduling class does not keep them off the model's
cores here. So while the model generates and leaves no core, the *background* tests (mutants
tested beside the model) wait (:data:`WHILE_GENERATING` ``pause``: three samples in 1.15x their
time alone, against 1.71x at ``SCHED_IDLE`` in the same run); they run between samples and after
the sampling phase, on every core.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

#: Environment variable that makes a test run (the repair plugin, in the test process) switch
#: itself to ``SCHED_IDLE``: it then runs only when no other process wants the core.
IDLE_ENV = "CODUR_REPAIR_IDLE"
#: Most threads the embedded model gets (a 1.5B model's generation is bound by memory
#: bandwidth long before this).
MAX_MODEL_THREADS = 8
CGROUP_ROOT = Path("/sys/fs/cgroup")


def parse_cpu_max(text: str) -> float | None:
    """CPUs of a cgroup v2 ``cpu.max`` line (``"150000 100000"`` -> 1.5; ``"max 100000"`` -> None:
    no quota). Raises ValueError on a line of another shape."""
    fields = text.split()
    if len(fields) not in (1, 2):
        raise ValueError(f"not a cpu.max line: {text!r}")
    if fields[0] == "max":
        return None
    period = int(fields[1]) if len(fields) == 2 else 100_000
    return int(fields[0]) / period if period > 0 else None


def parse_cfs(quota: str, period: str) -> float | None:
    """CPUs of cgroup v1's ``cpu.cfs_quota_us`` and ``cpu.cfs_period_us`` (``"-1"``: no quota,
    None). Raises ValueError when they are not integers."""
    q, p = int(quota.strip()), int(period.strip())
    return q / p if q > 0 and p > 0 else None


def _own_cgroups(proc_cgroup: Path) -> list[tuple[str, str]]:
    """(controllers, path) of each line of ``/proc/self/cgroup`` ("" controllers: cgroup v2)."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return []
    return [(parts[1], parts[2]) for line in lines if len(parts := line.split(":", 2)) == 3]


def _up_from(mount: Path, rel: str) -> list[Path]:
    """``mount/rel`` and each parent up to ``mount`` (a quota anywhere above applies too)."""
    here = mount / rel.strip("/")
    chain = [here, *here.parents]
    return [d for d in chain if d == mount or mount in d.parents]


def cgroup_quota(root: Path = CGROUP_ROOT, proc_cgroup: Path = Path("/proc/self/cgroup")) -> float | None:
    """The smallest CPU quota, in CPUs, of this process's cgroup and its parents (v2 ``cpu.max``,
    else v1 ``cpu.cfs_quota_us``/``cpu.cfs_period_us``); None when none is set or none can be read."""
    quotas: list[float] = []
    for controllers, rel in _own_cgroups(proc_cgroup) or [("", "/")]:
        if controllers == "":  # v2: one hierarchy
            for d in _up_from(root, rel):
                with contextlib.suppress(OSError, ValueError):
                    if (q := parse_cpu_max((d / "cpu.max").read_text())) is not None:
                        quotas.append(q)
        elif "cpu" in controllers.split(","):
            mount = next((root / n for n in (controllers, "cpu", "cpu,cpuacct") if (root / n).is_dir()), None)
            for d in _up_from(mount, rel) if mount is not None else []:
                with contextlib.suppress(OSError, ValueError):
                    q = parse_cfs((d / "cpu.cfs_quota_us").read_text(), (d / "cpu.cfs_period_us").read_text())
                    if q is not None:
                        quotas.append(q)
    return min(quotas, default=None)


def affinity_cores() -> int:
    """CPUs this process may run on (its affinity mask; ``os.cpu_count()`` where there is none)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def usable_cores(affinity: int | None = None, quota: float | None = None) -> int:
    """Cores codur may keep busy: ``affinity`` (default :func:`affinity_cores`) cut to the CPU
    ``quota`` rounded up (default :func:`cgroup_quota`), at least 1."""
    cores = affinity_cores() if affinity is None else affinity
    if quota is None and affinity is None:
        quota = cgroup_quota()
    if quota is not None:
        cores = min(cores, math.ceil(quota - 1e-9))
    return max(1, cores)


def model_threads(cores: int) -> int:
    """The embedded model's llama.cpp threads on ``cores`` cores: all of them up to 2, half past
    that (test workers keep the rest), at most :data:`MAX_MODEL_THREADS`."""
    return max(1, min(cores, max(2, cores // 2), MAX_MODEL_THREADS))


#: What a background test run does while the model generates and leaves it no core: ``pause``
#: starts none (measured best, see the module doc), ``idle`` starts one at ``SCHED_IDLE``,
#: ``share`` one at normal priority (codur before the budget); bench/cpu compares them.
WhileGenerating = Literal["idle", "pause", "share"]
WHILE_GENERATING: WhileGenerating = "pause"


class CpuBudget:
    """The cores of this process and who uses them: the embedded model while a call to it is in
    flight (:meth:`generating`), test runs the rest (:meth:`test_slots`). Thread-safe.

    Args:
        cores: the cores codur may use (:func:`usable_cores`).
        while_generating: what a background run does when the model leaves no core
            (:data:`WHILE_GENERATING`).
    """

    def __init__(self, cores: int, while_generating: WhileGenerating = WHILE_GENERATING) -> None:
        self.cores = max(1, cores)
        self.while_generating = while_generating
        self._calls: list[int] = []  # the threads of each model call in flight
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def generating(self, threads: int) -> Iterator[None]:
        """Count a model call in flight on a server of ``threads`` threads on this machine
        (0: a remote model, nothing counted) for the ``with`` block."""
        if threads <= 0:
            yield
            return
        with self._lock:
            self._calls.append(threads)
        try:
            yield
        finally:
            with self._lock:
                self._calls.remove(threads)

    @property
    def model_threads_busy(self) -> int:
        """Threads of the embedded model working now (the largest server's among the calls in
        flight: one server's slots share its threads), 0 while it waits."""
        with self._lock:
            return min(self.cores, max(self._calls, default=0))

    def free_cores(self) -> int:
        """Cores the model's threads leave now (every core while it waits)."""
        return self.cores - self.model_threads_busy

    def test_slots(self, workers: int, *, background: bool = False) -> int:
        """Test runs that may go at once on ``workers`` workers: the cores the model's threads
        leave while it generates, else every core. A foreground run (a candidate that may end
        the search) always gets one; a background run (a mutant tested beside the model) gets
        one only as :attr:`while_generating` says when the model leaves no core."""
        free = self.free_cores()
        if not background or free > 0:
            return min(workers, max(1, free))
        return 0 if self.while_generating == "pause" else min(workers, 1)

    def background_idle(self) -> bool:
        """Whether a background run started now goes at ``SCHED_IDLE`` (:data:`IDLE_ENV`): the
        model generates, leaves no core, and :attr:`while_generating` is ``idle``."""
        return self.while_generating == "idle" and self.free_cores() <= 0


_budget: CpuBudget | None = None
_budget_lock = threading.Lock()


def budget() -> CpuBudget:
    """The process's CPU budget, measured on first use (:func:`usable_cores`)."""
    global _budget
    with _budget_lock:
        if _budget is None:
            _budget = CpuBudget(usable_cores())
        return _budget
