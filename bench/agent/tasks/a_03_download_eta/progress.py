"""Progress reporting for the asset downloader's status line."""


def format_bytes(n):
    """Human readable size, e.g. 1536 -> '1.5 KiB'."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024


def percent_done(done_bytes, total_bytes):
    """Percentage of the download completed (0-100)."""
    if total_bytes <= 0:
        return 0.0
    return min(100.0, 100.0 * done_bytes / total_bytes)


def eta_seconds(done_bytes, total_bytes, elapsed):
    """Estimate the seconds left, assuming the average speed so far holds.

    Returns None while no data has arrived yet (speed unknown).
    """
    if done_bytes <= 0 or elapsed <= 0:
        return None
    remaining = max(0, total_bytes - done_bytes)
    speed = done_bytes / elapsed
    return round(total_bytes / speed, 1)


def status_line(done_bytes, total_bytes, elapsed):
    """One-line status such as '50.0% of 2.0 MiB, 10.0 s left'."""
    eta = eta_seconds(done_bytes, total_bytes, elapsed)
    left = "estimating..." if eta is None else f"{eta} s left"
    pct = percent_done(done_bytes, total_bytes)
    return f"{pct:.1f}% of {format_bytes(total_bytes)}, {left}"
