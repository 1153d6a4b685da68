"""Renewal dates for the magazine subscription billing job."""
import calendar
from datetime import date


def add_months(day, months):
    """Add ``months`` to ``day``, clamping to the last day of the target month.

    >>> add_months(date(2024, 1, 31), 1)
    datetime.date(2024, 2, 29)
    """
    month_index = day.month - 1 + months
    year = day.year + month_index // 12
    month = month_index % 12 + 1
    last_day = calendar.monthrange(year, month)[1]
    return date(year, month, min(day.day, last_day))


def next_renewal(start, plan):
    """Date on which a subscription started on ``start`` must be renewed."""
    if plan == "monthly":
        months = 1
    elif plan == "quarterly":
        months = 3
    elif plan == "yearly":
        months = 12
    else:
        raise ValueError(f"unknown plan: {plan!r}")
    return add_months(start, months)


def renewal_schedule(start, plan, count):
    """The next ``count`` renewal dates after ``start``."""
    dates = []
    current = start
    for _ in range(count):
        current = next_renewal(current, plan)
        dates.append(current)
    return dates
