"""Membership periods for the climbing gym's front desk."""

import calendar
from dataclasses import dataclass
from datetime import date


def add_months(d: date, months: int) -> date:
    """Same day `months` later, clamped to the end of shorter months
    (31 January + 1 month -> 29 February in a leap year)."""
    index = d.month - 1 + months
    year, month = d.year + index // 12, index % 12 + 1
    day = min(d.day, calendar.monthrange(year, month)[1])
    return date(year, month, day)


@dataclass
class Membership:
    member: str
    start: date
    months: int

    def expires_on(self) -> date:
        """First day on which the membership is no longer valid."""
        return add_months(self.start, self.months)

    def is_active(self, today: date) -> bool:
        return self.start <= today < self.expires_on()

    def days_left(self, today: date) -> int:
        """Days until expiry; 0 once expired."""
        return max((self.expires_on() - today).days, 0)

    def renew(self, months: int) -> "Membership":
        """Extend the membership, keeping the original start date."""
        return Membership(self.member, self.start, self.months + months)
