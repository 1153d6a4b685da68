"""Delays between retries of a failed upload: exponential backoff with a cap."""


def delays(first: float, factor: float, cap: float) -> list:
    """Seconds to wait before each retry: first, first*factor, ... while below `cap`,
    then `cap` once (the last retry)."""
    if first <= 0 or factor <= 1:
        raise ValueError("first must be positive and factor above 1")
    out = []
    delay = first
    while delay < cap:
        out.append(delay)
        delay = delay * factor
    out.append(cap)
    return out


def total_wait(first: float, factor: float, cap: float) -> float:
    return sum(delays(first, factor, cap))
