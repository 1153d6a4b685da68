"""Retry schedule for the webhook dispatcher.

When a delivery fails we retry with exponential backoff: the first retry
waits ``base`` seconds and every following retry waits ``factor`` times
longer, but never more than ``cap`` seconds.
"""


def backoff_delays(retries, base=0.5, factor=2.0, cap=30.0):
    """Return the list of delays (in seconds) to wait before each retry.

    ``retries`` is the total number of retries allowed, so the list has
    exactly that many entries.
    """
    if retries < 0:
        raise ValueError("retries must be >= 0")
    delays = []
    for n in range(retries):
        delays.append(min(cap, base * factor ** n))
    return delays


def total_wait(retries, **kwargs):
    """Worst-case time spent waiting if every retry fails."""
    return sum(backoff_delays(retries, **kwargs))


def retry_times(first_failure, retries, **kwargs):
    """Absolute timestamps at which the retries will be attempted."""
    times = []
    t = first_failure
    for delay in backoff_delays(retries, **kwargs):
        t += delay
        times.append(t)
    return times
