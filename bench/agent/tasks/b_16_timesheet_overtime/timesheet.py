"""Weekly timesheets and pay for the warehouse crew.

Hours are collected per day from the clock-in terminal. Pay is worked
out per ISO week; see weekly_pay() for how overtime is handled.
"""

from collections import defaultdict
from datetime import datetime

STANDARD_WEEK_HOURS = 38
OVERTIME_FACTOR = 1.25
MAX_SHIFT_HOURS = 12  # longer shifts are flagged for review, not cut


def shift_hours(clock_in: datetime, clock_out: datetime, break_minutes: int = 30) -> float:
    """Paid hours of one shift, after the unpaid break."""
    worked = (clock_out - clock_in).total_seconds() / 3600 - break_minutes / 60
    return round(max(worked, 0.0), 2)


def hours_by_week(days: dict) -> dict:
    """{(iso_year, iso_week): hours} from {date: hours}."""
    weeks = defaultdict(float)
    for day, hours in days.items():
        year, week, _ = day.isocalendar()
        weeks[(year, week)] += hours
    return dict(weeks)


def weekly_pay(hours: float, hourly_rate: float) -> float:
    """Pay for one week.

    Hours up to STANDARD_WEEK_HOURS are paid at the normal rate; every
    hour beyond that is paid at OVERTIME_FACTOR times the rate.
    """
    normal = min(hours, STANDARD_WEEK_HOURS)
    overtime = max(hours - STANDARD_WEEK_HOURS, 0)
    return round(normal * hourly_rate + overtime * hourly_rate * OVERTIME_FACTOR, 2)


def flagged_shifts(days: dict) -> list:
    """Dates whose hours exceed MAX_SHIFT_HOURS, sorted."""
    return sorted(d for d, h in days.items() if h > MAX_SHIFT_HOURS)

