def moving_average(xs, window):
    """Mean of every full window of consecutive values."""
    if window <= 0:
        raise ValueError("window must be positive")
    out = []
    for i in range(len(xs) - window):
        out.append(sum(xs[i:i + window]) / window)
    return out
