"""A model fixer's candidates consumed on a thread of their own while the search tests them
(:class:`Producer`), and the originals the evaluator needs (:func:`read_originals`)."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterable

from codur.patch.fixer import ModelCall
from codur.validate.evaluate import Candidate, files_of
from codur.validate.search import CandidateQueue
from codur.validate.session import RepairSession

#: Seconds the search waits, once it has ended, for a model call still in flight (a streamed
#: reply stops at its next token; a call with no token yet is left behind, not waited for).
SAMPLER_GRACE_S = 2.0


class Producer:
    """Consumes a model fixer's ``items`` into ``queue`` on the thread ``codur-sampler``.

    Each :class:`codur.patch.fixer.ModelCall` goes to ``count(call)`` (the pipeline counts it
    and emits its event) and its candidate, like any candidate item, is pushed with key
    ``(0, n)`` once ``session`` holds its files' originals; ``spent()`` is asked after each
    item (True: the budget is spent, no more items are taken). When the items end the queue
    closes. Once the phase has returned (:meth:`finish`) nothing more is reported.
    """

    def __init__(self, items: Iterable, queue: CandidateQueue, session: RepairSession,
                 count: Callable[[ModelCall], object], spent: Callable[[], bool]) -> None:
        self.items, self.queue, self.session, self.count, self.spent = items, queue, session, count, spent
        self.lock = threading.Lock()
        self.left_behind = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self, on_end: Callable[[], None]) -> None:
        """Start the thread, in this context (a model fixer's events go through the graph's
        stream writer); ``on_end()`` runs when the items end, before the queue closes."""
        self.thread = threading.Thread(target=contextvars.copy_context().run, args=(self._produce, on_end),
                                       name="codur-sampler", daemon=True)
        self.thread.start()

    def _produce(self, on_end: Callable[[], None]) -> None:
        n = 0
        try:
            for item in self.items:
                with self.lock:
                    if self.left_behind.is_set():  # the phase has returned: report nothing more
                        return
                    candidate = item
                    if isinstance(item, ModelCall):
                        self.count(item)
                        candidate = item.candidate
                    if candidate is not None:
                        read_originals(self.session, [candidate])
                        self.queue.push((0, n), candidate)
                        n += 1
                    if self.spent():
                        return
        finally:  # no more candidates: the backfill waits for the later fixers, then runs on every worker
            on_end()
            self.queue.close()

    def finish(self) -> None:
        """Wait up to :data:`SAMPLER_GRACE_S` for the thread (a call that blocks must not hold
        the search past its deadline), then let it report nothing more."""
        if self.thread is not None:
            self.thread.join(SAMPLER_GRACE_S)
        with self.lock:
            self.left_behind.set()


def read_originals(session: RepairSession, candidates: Iterable[Candidate]) -> None:
    """Read the original of every file ``candidates`` change into ``session`` (the evaluator
    judges a file whose original the session holds; one that cannot be read fails)."""
    for candidate in candidates:
        for rel in files_of(candidate):
            try:
                session.original(rel)
            except (OSError, ValueError):
                continue
