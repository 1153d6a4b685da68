"""Discount codes at checkout: a percentage and/or a fixed amount, with expiry and minimum spend."""

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class Code:
    name: str
    percent: float = 0.0
    amount: float = 0.0
    expires: date | None = None
    minimum: float = 0.0


def applicable(code, subtotal, today):
    if today > code.expires:
        return False
    return subtotal >= code.minimum


def discount(code, subtotal, today):
    if not applicable(code, subtotal, today):
        return 0.0
    value = subtotal * code.percent / 100 + code.amount
    return round(min(value, subtotal), 2)


def best_code(codes, subtotal, today):
    """The code that takes the most off ``subtotal``; None when no code applies."""
    usable = [c for c in codes if discount(c, subtotal, today) > 0]
    if not usable:
        return None
    return max(usable, key=lambda c: discount(c, subtotal, today))
