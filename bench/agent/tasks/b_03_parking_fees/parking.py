"""Fee calculation for the Station Road car park."""

import math
from datetime import datetime, timedelta

GRACE_PERIOD = timedelta(minutes=15)
HOURLY_CENTS = 250
DAILY_CAP_CENTS = 1800
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


def parking_fee(entered: datetime, left: datetime) -> int:
    """Return the fee in cents for a stay from `entered` to `left`.

    * Stays of up to and including GRACE_PERIOD are free.
    * Otherwise every started hour costs HOURLY_CENTS.
    * No single 24-hour period costs more than DAILY_CAP_CENTS.
    """
    stay = left - entered
    if stay < timedelta(0):
        raise ValueError("left before entering")
    if stay < GRACE_PERIOD:
        return 0
    full_days, rest = divmod(stay, DAY)
    started_hours = math.ceil(rest / HOUR)
    return full_days * DAILY_CAP_CENTS + min(started_hours * HOURLY_CENTS, DAILY_CAP_CENTS)


def format_fee(cents: int) -> str:
    """Format cents for the pay station display, e.g. 1250 -> 'EUR 12.50'."""
    return f"EUR {cents // 100}.{cents % 100:02d}"
