"""Sliding-window rate limiter used by the API gateway.

Each client may make at most ``limit`` requests within any window of
``window`` seconds. Timestamps are passed in explicitly so the limiter is
easy to test and does not depend on the wall clock.
"""
from collections import deque


class SlidingWindowLimiter:
    def __init__(self, limit, window):
        if limit <= 0 or window <= 0:
            raise ValueError("limit and window must be positive")
        self.limit = limit
        self.window = window
        self._hits = {}

    def _prune(self, hits, now):
        # Drop timestamps that have fallen out of the current window.
        while hits and hits[0] <= now - self.window:
            hits.popleft()

    def allow(self, client, now):
        """Record a request from ``client`` at ``now``; return True if it may proceed."""
        hits = self._hits.setdefault(client, deque())
        self._prune(hits, now)
        if len(hits) <= self.limit:
            hits.append(now)
            return True
        return False

    def remaining(self, client, now):
        """How many more requests ``client`` may make right now."""
        hits = self._hits.get(client, deque())
        self._prune(hits, now)
        return max(0, self.limit - len(hits))
