"""The search over candidate patches: a worker pool fed from a ranked queue, each candidate
judged by :func:`codur.validate.evaluate.evaluate`.

Candidates are dispatched best key first. Once one is plausible, in-flight candidates
ranked *below* it are aborted and those ranked above it may finish, so the winner is
the best-ranked plausible candidate among those tried, whatever the number of workers.
While a candidate that passed its failing tests runs the full suite, no new one
starts: it is likely the winner, and would otherwise share the CPU with work it makes
useless. After two such false alarms the search stops holding back. The search starts
with one candidate in flight and widens by one per finished candidate, up to the
number of workers: the best-ranked candidates are the likeliest fixes.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from codur.core.cpu import CpuBudget
from codur.core.cpu import budget as cpu_budget
from codur.validate.evaluate import Candidate, CandidateVerdict, Checks, Evaluation, evaluate, files_of
from codur.validate.worker import Worker


class CandidateQueue:
    """A thread-safe priority queue of candidates: lowest ``key`` first, then first pushed.

    Producers :meth:`push` and finally :meth:`close`; the evaluator pops until the queue
    is closed and empty. A queue built from a list is closed at once.
    """

    def __init__(self, items: list[tuple[Any, Candidate]] | None = None, *, closed: bool = False):
        self._heap: list[tuple[Any, int, Candidate]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._closed = closed
        self._pushes = 0
        for key, candidate in items or []:
            self._heap.append((key, next(self._seq), candidate))
        heapq.heapify(self._heap)

    @classmethod
    def ranked(cls, candidates: list[Candidate]) -> CandidateQueue:
        """A closed queue of ``candidates`` in list order (key = index)."""
        return cls([(i, c) for i, c in enumerate(candidates)], closed=True)

    def push(self, key: Any, candidate: Candidate) -> None:
        with self._cond:
            heapq.heappush(self._heap, (key, next(self._seq), candidate))
            self._pushes += 1
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def pop(self) -> tuple[Any, Candidate] | None:
        """The best item, or None when the queue is empty right now."""
        with self._cond:
            if not self._heap:
                return None
            key, _, candidate = heapq.heappop(self._heap)
            return key, candidate

    def take(self, which: Callable[[Any], bool]) -> list[tuple[Any, Candidate]]:
        """Remove and return the items whose key ``which`` accepts, best first."""
        with self._cond:
            taken = sorted((k, seq, c) for k, seq, c in self._heap if which(k))
            self._heap = [item for item in self._heap if not which(item[0])]
            heapq.heapify(self._heap)
            return [(k, c) for k, _, c in taken]

    def wait(self, timeout: float, *, held: bool = False) -> None:
        """Block until an item is pushed, the queue closes, or ``timeout`` seconds pass; with
        ``held`` (the items waiting may not start yet), until the next push or ``timeout``."""
        with self._cond:
            if held:
                pushes = self._pushes
                self._cond.wait_for(lambda: self._pushes != pushes, timeout)
            elif not self._heap and not self._closed:
                self._cond.wait(timeout)

    def drain(self) -> list[tuple[Any, Candidate]]:
        """Remove and return every waiting item, best first."""
        with self._cond:
            items = sorted(self._heap)
            self._heap.clear()
            return [(k, c) for k, _, c in items]

    @property
    def exhausted(self) -> bool:
        with self._cond:
            return self._closed and not self._heap

    def __len__(self) -> int:
        with self._cond:
            return len(self._heap)


class SearchStop(StrEnum):
    """Why a search over candidates ended (:attr:`SearchOutcome.stopped`)."""

    FOUND = "found"  # a plausible candidate
    EXHAUSTED = "exhausted"  # the queue closed and ran empty
    BUDGET = "budget"  # the deadline passed
    CANCELLED = "cancelled"


@dataclass
class SearchOutcome:
    """``best`` is the accepted candidate (None if none) and ``best_key`` its key;
    ``stopped`` says why the search ended (:class:`SearchStop`); ``left`` holds the
    candidates not tried (queued, or aborted by the deadline), best first;
    ``near_misses`` the (key, candidate, fixed) near misses."""

    best: Candidate | None
    best_key: Any
    tried: int
    stopped: SearchStop
    left: list[tuple[Any, Candidate]] = field(default_factory=list)
    near_misses: list[tuple[Any, Candidate, int]] = field(default_factory=list)


def search(queue: CandidateQueue, workers: list[Worker], texts: dict[str, str], checks: Checks, *,
           deadline: float, cancel: threading.Event,
           on_result: Callable[[Any, Candidate, Evaluation], None] = lambda k, c, e: None,
           background: Callable[[Any], bool] = lambda key: False, cpu: CpuBudget | None = None) -> SearchOutcome:
    """Evaluate candidates from ``queue`` (best key first) on ``workers`` until one is plausible.

    ``texts`` maps each file to its original text (every file of every candidate).
    ``deadline`` is a ``time.monotonic()`` value. ``on_result(key, candidate, evaluation)``
    is called from this thread for each finished candidate. Runs at once: as many as the CPU
    budget ``cpu`` (default the process's, :func:`codur.core.cpu.budget`) gives, asked before
    each start: the cores the embedded model leaves while it generates, else every core.
    Candidates whose key ``background`` accepts (mutants tested while a model writes) get the
    budget's background slots, and start at ``SCHED_IDLE`` when it says so. Exceptions of a
    worker (its runner died) propagate after every run in flight is killed; so does
    KeyboardInterrupt.
    """
    cpu = cpu or cpu_budget()
    idle = list(reversed(workers))
    inflight: dict[Future, tuple[Any, Candidate, Worker]] = {}
    promising: set[int] = set()  # ids of in-flight candidates past their failing tests
    false_alarms = 0  # passed their failing tests, then failed the suite
    best: tuple[Any, Candidate] | None = None
    tried, stopped, finished = 0, SearchStop.EXHAUSTED, 0
    left: list[tuple[Any, Candidate]] = []
    near: list[tuple[Any, Candidate, int]] = []
    with ThreadPoolExecutor(len(workers), thread_name_prefix="codur-repair") as pool:
        try:
            while True:
                if stopped is SearchStop.EXHAUSTED and (cancel.is_set() or time.monotonic() > deadline):
                    stopped = SearchStop.CANCELLED if cancel.is_set() else SearchStop.BUDGET
                    _abort(inflight, lambda k: True)
                hold = bool(promising) and false_alarms < 2
                width = min(cpu.test_slots(len(workers)), 1 + finished)  # ramp up: the top candidates often win
                held = False  # the best item waits for the budget
                while best is None and stopped is SearchStop.EXHAUSTED and len(inflight) < width and not hold:
                    item = queue.pop()
                    if item is None:
                        break
                    key, candidate = item
                    behind = background(key)
                    if behind and sum(background(k) for k, _, _ in inflight.values()) >= cpu.test_slots(
                            len(workers), background=True):
                        queue.push(key, candidate)  # the best item waits: nothing better is queued
                        held = True
                        break
                    worker = idle.pop()
                    worker.reset(idle=behind and cpu.background_idle())
                    originals = {rel: texts[rel] for rel in files_of(candidate) if rel in texts}  # none: it fails
                    future = pool.submit(evaluate, worker, candidate, originals, checks,
                                         lambda c=candidate: promising.add(id(c)))
                    inflight[future] = (key, candidate, worker)
                if not inflight:
                    if best is not None or stopped is not SearchStop.EXHAUSTED or queue.exhausted:
                        break
                    queue.wait(0.1, held=held)  # held: a sample's push wakes it, not the held items
                    continue
                done, _ = wait(list(inflight), timeout=0.1, return_when=FIRST_COMPLETED)
                for future in done:
                    key, candidate, worker = inflight.pop(future)
                    idle.append(worker)
                    finished += 1
                    result = future.result()
                    if id(candidate) in promising:
                        promising.discard(id(candidate))
                        false_alarms += result.status in (CandidateVerdict.FAILED, CandidateVerdict.TIMEOUT)
                    if result.status is CandidateVerdict.ABORTED:
                        if stopped is SearchStop.BUDGET:
                            left.append((key, candidate))  # not tried: it may run later
                        continue
                    tried += 1
                    on_result(key, candidate, result)
                    if result.status is CandidateVerdict.NEAR_MISS:
                        near.append((key, candidate, result.fixed))
                    if result.status is CandidateVerdict.PLAUSIBLE and (best is None or key < best[0]):
                        best = (key, candidate)
                        _abort(inflight, lambda k, b=key: k > b)
        except BaseException:
            _abort(inflight, lambda k: True)
            raise
    if best is not None:
        stopped = SearchStop.FOUND
    left = sorted(left + queue.drain(), key=lambda kc: kc[0]) if best is None else []
    return SearchOutcome(best[1] if best else None, best[0] if best else None, tried, stopped, left, near)


def _abort(inflight: dict[Future, tuple[Any, Candidate, Worker]], which: Callable[[Any], bool]) -> None:
    for key, _, worker in inflight.values():
        if which(key):
            worker.abort()
