"""Smooth noisy sensor readings with a moving average."""


def moving_average(values: list, size: int) -> list:
    """Average of each window of `size` consecutive values (len(values) - size + 1 of
    them), computed with a running sum."""
    if size <= 0:
        raise ValueError("size must be positive")
    if len(values) < size:
        return []
    window = sum(values[:size])
    out = [window / size]
    for i in range(size, len(values)):
        window += values[i]
        out.append(window / size)
    return out


def spikes(values: list, size: int, factor: float = 2.0) -> list:
    """Indexes of readings more than `factor` times the average of the window ending just before them."""
    averages = moving_average(values, size)
    return [i for i in range(size, len(values)) if values[i] > factor * averages[i - size]]
