from datetime import date

import pytest
from checkout import Coupon, CouponError, apply_coupon, subtotal

CART = [("mug", 8.5, 2), ("tea", 4.0, 3)]
SPRING = Coupon("SPRING10", 10, date(2024, 5, 31), minimum=20)


def test_subtotal():
    assert subtotal(CART) == 29.0


def test_coupon_applied():
    assert apply_coupon(CART, SPRING, date(2024, 5, 1)) == 26.1


def test_coupon_valid_on_its_last_day():
    assert apply_coupon(CART, SPRING, date(2024, 5, 31)) == 26.1


def test_expired_coupon_is_refused():
    with pytest.raises(CouponError):
        apply_coupon(CART, SPRING, date(2024, 6, 1))


def test_minimum_not_reached():
    with pytest.raises(CouponError):
        apply_coupon([("tea", 4.0, 1)], SPRING, date(2024, 5, 1))
