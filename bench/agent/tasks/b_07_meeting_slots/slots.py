"""Find free meeting slots in a person's calendar for one day."""

from datetime import datetime, timedelta

STEP = timedelta(minutes=15)


def overlaps(start_a, end_a, start_b, end_b) -> bool:
    """Half-open intervals [a) and [b) share at least one instant."""
    return start_a < end_b and start_b < end_a


def free_slots(busy, day_start: datetime, day_end: datetime, length: timedelta, step=STEP):
    """All start times (every `step` from `day_start`) for a meeting of
    `length` that fits before `day_end` and clashes with no busy interval.

    `busy` is a list of (start, end) datetime pairs.
    """
    slots = []
    t = day_start
    while t + length <= day_end:
        end = t + length
        if not any(overlaps(t, end, b_start, b_end) for b_start, b_end in busy):
            slots.append(t)
            t += step
    return slots


def first_free_slot(busy, day_start, day_end, length, step=STEP):
    """Earliest free start time, or None when the day is full."""
    slots = free_slots(busy, day_start, day_end, length, step)
    return slots[0] if slots else None
