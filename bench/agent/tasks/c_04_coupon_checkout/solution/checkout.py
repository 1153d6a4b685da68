"""Apply a coupon to a shopping cart at checkout."""

from dataclasses import dataclass
from datetime import date


class CouponError(Exception):
    pass


@dataclass
class Coupon:
    code: str
    percent: int
    expires: date
    minimum: float = 0.0


def subtotal(cart: list) -> float:
    """`cart` holds (item, unit price, quantity) tuples."""
    return round(sum(price * qty for _, price, qty in cart), 2)


def apply_coupon(cart: list, coupon: Coupon, today: date) -> float:
    """The total after `coupon`. Raises CouponError when the coupon has expired (it is
    valid through its `expires` day) or the cart is below the coupon's minimum."""
    if today > coupon.expires:
        raise CouponError(f"{coupon.code} expired on {coupon.expires}")
    amount = subtotal(cart)
    if amount < coupon.minimum:
        raise CouponError(f"{coupon.code} needs a cart of at least {coupon.minimum:.2f}")
    return round(amount * (100 - coupon.percent) / 100, 2)
