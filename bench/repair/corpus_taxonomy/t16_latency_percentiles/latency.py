"""Latency report of an HTTP service: nearest-rank percentiles of response times in ms."""

import math


def percentile(samples, p):
    """The nearest-rank ``p``-th percentile (0 < p <= 100) of ``samples``."""
    if not samples:
        raise ValueError("no samples")
    if not 0 < p <= 100:
        raise ValueError("p must be in (0, 100]")
    ordered = sorted(samples)
    rank = math.floor(p / 100 * len(ordered))
    return ordered[rank - 1]


def report(samples, points=(50, 90, 99)):
    return {f"p{p}": percentile(samples, p) for p in points}


def slow_share(samples, threshold_ms):
    """Fraction of the requests slower than ``threshold_ms``."""
    return sum(1 for s in samples if s > threshold_ms) / len(samples)


def format_report(samples):
    parts = [f"{name}={value}ms" for name, value in report(samples).items()]
    return f"n={len(samples)} " + " ".join(parts)
