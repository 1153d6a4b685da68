"""Parallel evaluation of mutants: a worker pool searched in rank order.

Every mutant runs in a worker's private copy: the failing tests first, then (only if
they pass) the full suite, each stage under a timeout. Mutants are dispatched in rank
order; once one is plausible, in-flight mutants ranked *below* it are aborted and those
ranked above it may finish, so the winner is the best-ranked plausible mutant, the same
one a sequential search would return, whatever the number of workers. While a mutant
that passed its failing tests runs the full suite, no new mutant starts: it is likely
the winner, and would otherwise share the CPU with work it makes useless. After two
such false alarms (the suite breaks elsewhere) the search stops holding back. For the
same reason the search starts with one mutant in flight and widens by one per finished
mutant, up to the number of workers: the best-ranked mutants are the likeliest fixes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from codur.repair.mutants import Mutant
from codur.repair.worker import Worker


@dataclass(frozen=True)
class Stage:
    """One test run of a mutant: pytest ``args``, extra ``env``, ``timeout_s`` seconds."""

    args: tuple[str, ...]
    timeout_s: float
    env: tuple[tuple[str, str], ...] = ()


def evaluate(worker: Worker, mutant: Mutant, original: str, stages: list[Stage],
             on_first_pass: Callable[[], None] = lambda: None) -> str:
    """Apply ``mutant`` in the worker's copy, run ``stages``, restore the file.

    ``on_first_pass`` is called once the first stage (the failing tests) passed.
    Returns "plausible" (every stage passed), "failed", "timeout" or "aborted".
    """
    path = worker.root / mutant.file
    path.write_bytes(mutant.apply(original).encode("utf-8"))
    try:
        for i, stage in enumerate(stages):
            result = worker.run(list(stage.args), stage.timeout_s, dict(stage.env))
            if result.status != "passed":
                return result.status
            if i == 0:
                on_first_pass()
        return "plausible"
    finally:
        path.write_bytes(original.encode("utf-8"))


@dataclass(frozen=True)
class SearchOutcome:
    """``best`` is the index of the accepted mutant (None if none); ``stopped`` says why
    the search ended: "found", "exhausted", "time_budget" or "cancelled"."""

    best: int | None
    tried: int
    stopped: str


def search(mutants: list[Mutant], workers: list[Worker], texts: dict[str, str],
           stages: list[Stage], *, deadline: float, cancel: threading.Event,
           on_result: Callable[[int, str], None] = lambda i, r: None) -> SearchOutcome:
    """Evaluate ``mutants`` (best first) on ``workers`` until one is plausible.

    ``deadline`` is a ``time.monotonic()`` value. ``on_result(index, result)`` is called
    from this thread for each finished mutant. Exceptions of a worker (its runner died)
    propagate after every run in flight is killed; so does KeyboardInterrupt.
    """
    idle = list(reversed(workers))
    inflight: dict[Future, tuple[int, Worker]] = {}
    promising: set[int] = set()  # in flight and past their failing tests
    false_alarms = 0  # passed their failing tests, then failed the suite
    best, tried, next_index, stopped, finished = None, 0, 0, "exhausted", 0
    with ThreadPoolExecutor(len(workers), thread_name_prefix="codur-repair") as pool:
        try:
            while True:
                if cancel.is_set() or time.monotonic() > deadline:
                    stopped = "cancelled" if cancel.is_set() else "time_budget"
                    _abort(inflight, lambda i: True)
                hold = bool(promising) and false_alarms < 2
                width = min(len(workers), 1 + finished)  # ramp up: the top mutants often win
                while (best is None and stopped == "exhausted" and len(inflight) < width
                       and not hold and next_index < len(mutants)):
                    worker, mutant = idle.pop(), mutants[next_index]
                    worker.reset()
                    future = pool.submit(evaluate, worker, mutant, texts[mutant.file], stages,
                                         lambda i=next_index: promising.add(i))
                    inflight[future] = (next_index, worker)
                    next_index += 1
                if not inflight:
                    break
                done, _ = wait(list(inflight), timeout=0.1, return_when=FIRST_COMPLETED)
                for future in done:
                    index, worker = inflight.pop(future)
                    idle.append(worker)
                    finished += 1
                    result = future.result()
                    if index in promising:
                        promising.discard(index)
                        false_alarms += result in ("failed", "timeout")
                    if result == "aborted":
                        continue
                    tried += 1
                    on_result(index, result)
                    if result == "plausible" and (best is None or index < best):
                        best = index
                        _abort(inflight, lambda i, b=index: i > b)
        except BaseException:
            _abort(inflight, lambda i: True)
            raise
    if best is not None:
        stopped = "found"
    return SearchOutcome(best, tried, stopped)


def _abort(inflight: dict[Future, tuple[int, Worker]], which: Callable[[int], bool]) -> None:
    for index, worker in inflight.values():
        if which(index):
            worker.abort()
