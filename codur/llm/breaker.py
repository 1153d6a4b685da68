"""The run's circuit breaker: an endpoint that failed ``limit`` calls in a row is not called again.

Shared by every model of a run (:class:`codur.llm.factory.ModelFactory`) and checked by
:class:`codur.llm.deadline.DeadlineChatOpenAI` before each call.
"""

from __future__ import annotations

import threading
from collections import Counter

import openai

try:  # the HTTP library openai's client is built on (as in codur.llm.deadline)
    import httpx2 as httpx
except ImportError:  # pragma: no cover - an older openai
    import httpx  # type: ignore[no-redef]


class CircuitBreaker:
    """One run's count of timeouts and connection failures per endpoint: once an endpoint has
    failed ``limit`` calls in a row, no role calls it again in the run (a call raises at once),
    so a dead or hung endpoint costs ``limit`` timeouts, not one per role and retry
    (measured before: 8 sequential 60 s attempts, 502 s, where a refused endpoint ended in 17 s).
    Thread-safe; a success resets the count."""

    def __init__(self, limit: int = 2) -> None:
        self.limit = limit
        self._failures: Counter[str] = Counter()
        self._last: dict[str, str] = {}
        self._kinds: dict[str, list[str]] = {}  # the kinds of failure of the current streak
        self._lock = threading.Lock()

    def check(self, base_url: str) -> None:
        """Raise ``openai.APIConnectionError`` (the endpoint given up) when ``base_url`` is open."""
        with self._lock:
            failed = self._failures[base_url]
        if failed >= self.limit:
            raise openai.APIConnectionError(
                message=f"{base_url}: not called again in this run after {self._streak(base_url)} (circuit "
                        "breaker)", request=httpx.Request("POST", base_url))

    def record(self, base_url: str, failed: bool, error: str = "", kind: str = "connection failure") -> None:
        """Count a failed call (``kind``: ``timeout``, ``connection failure`` or ``reply refused``;
        ``error``: what it raised, naming the cause), or reset on a success."""
        with self._lock:
            self._failures[base_url] = self._failures[base_url] + 1 if failed else 0
            self._kinds[base_url] = [*self._kinds.get(base_url, []), kind] if failed else []
            if failed:
                self._last[base_url] = error

    def _streak(self, url: str) -> str:
        """``2 timeouts in a row``, ``2 replies refused in a row``, ``2 timeouts or connection failures
        in a row``: the failures of ``url``'s streak, by their kinds."""
        plural = {"timeout": "timeouts", "connection failure": "connection failures",
                  "reply refused": "replies refused"}
        kinds = list(dict.fromkeys(self._kinds.get(url) or ["connection failure"]))
        return f"{self._failures[url]} {' or '.join(plural.get(k, k) for k in kinds)} in a row"

    def down(self) -> dict[str, str]:
        """The endpoints given up, each with why, naming the failures as they were: ``{url: "2
        timeouts in a row; last: APITimeoutError: Request timed out."}``, ``{url: "2 replies refused
        in a row; last: the model's reply is over 16777216 bytes; not read further"}``."""
        with self._lock:
            return {url: f"{self._streak(url)}; last: {self._last.get(url, '')}"
                    for url, n in self._failures.items() if n >= self.limit}
