def clamp(x, lo, hi):
    """x limited to the interval [lo, hi]."""
    if lo > hi:
        raise ValueError("empty interval")
    return min(lo, max(x, hi))


def clamp_all(values, lo, hi):
    return [clamp(v, lo, hi) for v in values]
