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
from collections.abc import Callable, Iterator
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

    def candidates(self) -> list[Candidate]:
        """Every waiting candidate (a snapshot, in no order)."""
        with self._cond:
            return [c for _, _, c in self._heap]

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
    ``near_misses`` the (key, candidate, fixed) near misses; ``held`` the (key, candidate,
    evaluation) of the plausible candidates held back by an anti-pattern (never ``best``)."""

    best: Candidate | None
    best_key: Any
    tried: int
    stopped: SearchStop
    left: list[tuple[Any, Candidate]] = field(default_factory=list)
    near_misses: list[tuple[Any, Candidate, int]] = field(default_factory=list)
    held: list[tuple[Any, Candidate, Evaluation]] = field(default_factory=list)


class _Runs:
    """The candidates in flight of one search, each on a worker of its own: started best key
    first, collected as they finish, aborted by key. ``promising`` holds the ids of those past
    their failing tests (now running the suite), ``false_alarms`` counts those that then failed
    it, ``finished`` every candidate collected. ``cpu`` says how many may run at once."""

    def __init__(self, pool: ThreadPoolExecutor, workers: list[Worker], texts: dict[str, str], checks: Checks,
                 cpu: CpuBudget):
        self.pool, self.texts, self.checks, self.cpu = pool, texts, checks, cpu
        self.n_workers = len(workers)
        self.idle = list(reversed(workers))
        self.inflight: dict[Future, tuple[Any, Candidate, Worker]] = {}
        self.promising: set[int] = set()
        self.false_alarms = 0
        self.finished = 0

    @property
    def holding(self) -> bool:
        """No new run starts while one is likely the winner (until two false alarms)."""
        return bool(self.promising) and self.false_alarms < 2

    def width(self) -> int:
        """Runs at once now: the CPU budget's slots, ramped up by one per finished candidate
        (the top candidates often win)."""
        return min(self.cpu.test_slots(self.n_workers), 1 + self.finished)

    def background_full(self, background: Callable[[Any], bool]) -> bool:
        """The background runs in flight (keys ``background`` accepts) use every background slot."""
        running = sum(background(k) for k, _, _ in self.inflight.values())
        return running >= self.cpu.test_slots(self.n_workers, background=True)

    def start(self, key: Any, candidate: Candidate, *, idle: bool) -> None:
        """Evaluate ``candidate`` on a free worker (at ``SCHED_IDLE`` when ``idle``)."""
        worker = self.idle.pop()
        worker.reset(idle=idle)
        originals = {rel: self.texts[rel] for rel in files_of(candidate) if rel in self.texts}  # none: it fails
        future = self.pool.submit(evaluate, worker, candidate, originals, self.checks,
                                  lambda c=candidate: self.promising.add(id(c)))
        self.inflight[future] = (key, candidate, worker)

    def collect(self, timeout: float) -> Iterator[tuple[Any, Candidate, Evaluation]]:
        """(key, candidate, evaluation) of the runs that finish within ``timeout`` seconds; a
        worker's exception propagates."""
        done, _ = wait(list(self.inflight), timeout=timeout, return_when=FIRST_COMPLETED)
        for future in done:
            key, candidate, worker = self.inflight.pop(future)
            self.idle.append(worker)
            self.finished += 1
            result = future.result()
            if id(candidate) in self.promising:
                self.promising.discard(id(candidate))
                self.false_alarms += result.status in (CandidateVerdict.FAILED, CandidateVerdict.TIMEOUT)
            yield key, candidate, result

    def abort(self, which: Callable[[Any], bool], *, spare_promising: bool = False) -> None:
        """Kill the runs in flight whose key ``which`` accepts (with ``spare_promising``, but
        for those past their failing tests)."""
        for key, candidate, worker in self.inflight.values():
            if which(key) and not (spare_promising and id(candidate) in self.promising):
                worker.abort()


def _start_next(queue: CandidateQueue, runs: _Runs, background: Callable[[Any], bool]) -> bool:
    """Start the best queued candidates while the runs' width allows; True when the best one
    waits for a background slot (pushed back: nothing better is queued)."""
    width = runs.width()
    while len(runs.inflight) < width:
        item = queue.pop()
        if item is None:
            return False
        key, candidate = item
        behind = background(key)
        if behind and runs.background_full(background):
            queue.push(key, candidate)
            return True
        runs.start(key, candidate, idle=behind and runs.cpu.background_idle())
    return False


def search(queue: CandidateQueue, workers: list[Worker], texts: dict[str, str], checks: Checks, *,
           deadline: float, cancel: threading.Event,
           on_result: Callable[[Any, Candidate, Evaluation], None] = lambda k, c, e: None,
           background: Callable[[Any], bool] = lambda key: False, finish_by: float | None = None) -> SearchOutcome:
    """Evaluate candidates from ``queue`` (best key first) on ``workers`` until one is plausible
    (one held back by an anti-pattern, status "held", does not stop it: :attr:`SearchOutcome.held`).

    ``texts`` maps each file to its original text (every file of every candidate).
    ``deadline`` is a ``time.monotonic()`` value. ``on_result(key, candidate, evaluation)``
    is called from this thread for each finished candidate. Runs at once: as many as the
    process's CPU budget (:func:`codur.core.cpu.budget`) gives, asked before each start: the
    cores the embedded model leaves while it generates, else every core. Candidates whose key
    ``background`` accepts (mutants tested while a model writes) get the budget's background
    slots, and start at ``SCHED_IDLE`` when it says so. At ``deadline`` no candidate starts
    and the runs in flight are killed, but for those past their failing tests (likely winners,
    running the rest of the suite): they may finish until ``finish_by`` (a later
    ``time.monotonic()`` value: the whole search's end when ``deadline`` is a phase's time box;
    None: ``deadline``). Exceptions of a worker (its runner died) propagate after every run in
    flight is killed; so does KeyboardInterrupt.
    """
    finish_by = deadline if finish_by is None else finish_by
    found = SearchOutcome(None, None, 0, SearchStop.EXHAUSTED)  # so far
    with ThreadPoolExecutor(len(workers), thread_name_prefix="codur-repair") as pool:
        runs = _Runs(pool, workers, texts, checks, cpu_budget())
        try:
            while True:
                now = time.monotonic()
                if found.stopped is SearchStop.EXHAUSTED and (cancel.is_set() or now > deadline):
                    found.stopped = SearchStop.CANCELLED if cancel.is_set() else SearchStop.BUDGET
                    runs.abort(lambda k: True, spare_promising=not cancel.is_set() and now < finish_by)
                elif found.stopped is not SearchStop.EXHAUSTED and (cancel.is_set() or now > finish_by):
                    runs.abort(lambda k: True)
                searching = found.best is None and found.stopped is SearchStop.EXHAUSTED
                held = _start_next(queue, runs, background) if searching and not runs.holding else False
                if not runs.inflight:
                    if not searching or queue.exhausted:
                        break
                    queue.wait(0.1, held=held)  # held: a sample's push wakes it, not the held items
                    continue
                for key, candidate, result in runs.collect(0.1):
                    if _tally(found, key, candidate, result, on_result):
                        runs.abort(lambda k, b=key: k > b)
        except BaseException:
            runs.abort(lambda k: True)
            raise
    if found.best is not None:
        found.stopped, found.left = SearchStop.FOUND, []
    else:
        found.left = sorted(found.left + queue.drain(), key=lambda kc: kc[0])
    return found


def _tally(found: SearchOutcome, key: Any, candidate: Candidate, result: Evaluation,
           on_result: Callable[[Any, Candidate, Evaluation], None]) -> bool:
    """Count one finished candidate into ``found`` (the search so far) and hand it to
    ``on_result`` unless it was aborted (one aborted by the deadline goes back to ``left``);
    True when it is the new best (plausible, and ranked above any plausible one before)."""
    if result.status is CandidateVerdict.ABORTED:
        if found.stopped is SearchStop.BUDGET:
            found.left.append((key, candidate))  # not tried: it may run later
        return False
    found.tried += 1
    on_result(key, candidate, result)
    if result.status is CandidateVerdict.NEAR_MISS:
        found.near_misses.append((key, candidate, result.fixed))
    if result.status is CandidateVerdict.HELD:
        found.held.append((key, candidate, result))
    if result.status is CandidateVerdict.PLAUSIBLE and (found.best is None or key < found.best_key):
        found.best, found.best_key = candidate, key
        return True
    return False
