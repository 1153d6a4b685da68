"""Highlights of a video: viewers mark (start, end) ranges in seconds, and overlapping
marks are merged before the highlight reel is cut."""


def _seconds(clock):
    minutes, seconds = clock.strip().split(":")
    return int(minutes) * 60 + int(seconds)


def parse_range(text):
    """'1:05-1:30' -> (65, 90)."""
    start, end = (_seconds(part) for part in text.split("-"))
    if end <= start:
        raise ValueError(f"empty range {text!r}")
    return start, end


def merge(ranges):
    """Sorted, non-overlapping (start, end) ranges covering the given ones."""
    merged = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            last_start, last_end = merged[-1]
            merged[-1] = (last_start, max(last_end, start))
        else:
            merged.append((start, end))
    return merged


def reel_length(ranges):
    return sum(end - start for start, end in merge(ranges))


def uncovered(ranges, duration):
    """The parts of a ``duration``-second video that no highlight covers."""
    gaps, cursor = [], 0
    for start, end in merge(ranges):
        if start > cursor:
            gaps.append((cursor, min(start, duration)))
        cursor = max(cursor, end)
    if cursor < duration:
        gaps.append((cursor, duration))
    return gaps
