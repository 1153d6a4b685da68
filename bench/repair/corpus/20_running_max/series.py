def running_max(values):
    """Largest value seen so far at each position."""
    out = []
    best = None
    for v in values:
        best = v if best is None else min(best, v)
        out.append(best)
    return out


def drawdown(values):
    peaks = running_max(values)
    return [peak - v for peak, v in zip(peaks, values)]
