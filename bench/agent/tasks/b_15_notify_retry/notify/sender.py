"""Deliver a message through a transport, retrying transient failures."""

import time

from .config import Settings


class TransientError(Exception):
    """The transport failed in a way that is worth retrying."""


class Sender:
    def __init__(self, transport, settings: Settings = None, sleep=time.sleep):
        self.transport = transport
        self.settings = settings or Settings()
        self._sleep = sleep

    def delays(self) -> list:
        """Seconds to wait before each retry (one entry per retry)."""
        s = self.settings
        return [s.retry_delay * s.backoff ** i for i in range(s.max_attempts - 1)]

    def send(self, to: str, message: str) -> int:
        """Send `message` to `to`; return the number of attempts used.

        Transient errors are retried after the delays above; the last
        error is re-raised when every attempt failed.
        """
        waits = self.delays()
        for attempt in range(1, self.settings.max_attempts + 1):
            try:
                self.transport(self.settings.channel, to, message, self.settings.timeout)
                return attempt
            except TransientError:
                if attempt == self.settings.max_attempts:
                    raise
                self._sleep(waits[attempt - 1])
        raise AssertionError("unreachable")
