"""Memory limits of the test processes codur starts: an address-space limit (RLIMIT_AS).

A test that allocates past the limit gets a MemoryError (Python's answer to a failed
allocation) and fails like any failing test, instead of swapping the machine to a halt
or waking the OOM killer, which would kill codur's other workers or codur itself.
The limit is set in the child, before it runs anything: by ``preexec_fn`` for a process
codur starts, and by the repair fork server in each forked run
(:data:`MEMORY_ENV`, read by ``_runtime/codur_repair_zygote.py``).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

#: The environment variable carrying a run's limit, in MiB, to the repair fork server.
MEMORY_ENV = "CODUR_REPAIR_MEMORY_MB"
#: The share of the machine's memory all test processes may use together.
MACHINE_SHARE = 0.5
#: No default limit below this many MiB (an interpreter with pytest and coverage loaded
#: maps about 300 MiB of address space).
MIN_DEFAULT_MB = 1024


def machine_memory_mb() -> int | None:
    """The machine's physical memory in MiB (``sysconf``), or None where it cannot be read."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):
        return None


def default_test_memory_mb(workers: int) -> int | None:
    """The default limit of one test process, MiB: :data:`MACHINE_SHARE` of the machine's
    memory divided by ``workers`` (the repair workers running at once), at least
    :data:`MIN_DEFAULT_MB`; None (no limit) when the machine's memory is unknown."""
    total = machine_memory_mb()
    if total is None:
        return None
    return max(MIN_DEFAULT_MB, int(total * MACHINE_SHARE) // max(1, workers))


#: The share of the machine's memory the sandbox's private /tmp may fill by default (a tmpfs is
#: RAM that RLIMIT_AS does not count: a test filled an unsized one with 4 GiB).
TMP_SHARE = 0.125
#: No default /tmp size below this many MiB.
MIN_TMP_MB = 256


def default_tmp_mb() -> int | None:
    """The default size of the sandbox's private /tmp, MiB: :data:`TMP_SHARE` of the machine's
    memory, at least :data:`MIN_TMP_MB`; None (bwrap's own: half the memory) when unknown."""
    total = machine_memory_mb()
    return None if total is None else max(MIN_TMP_MB, int(total * TMP_SHARE))


def address_space_limit(memory_mb: int | None) -> Callable[[], None] | None:
    """A ``preexec_fn`` that sets RLIMIT_AS (soft and hard) to ``memory_mb`` MiB in the child,
    or None for no limit (``memory_mb`` None or 0, or no ``resource`` module here). It is
    a bound C call: nothing in it takes a lock another thread of codur could hold."""
    if not memory_mb:
        return None
    try:
        import resource
    except ImportError:
        return None
    limit = int(memory_mb) * 2**20
    return functools.partial(resource.setrlimit, resource.RLIMIT_AS, (limit, limit))
