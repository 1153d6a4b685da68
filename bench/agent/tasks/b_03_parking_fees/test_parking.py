from datetime import datetime

import pytest
from parking import format_fee, parking_fee

IN = datetime(2024, 3, 4, 9, 0)


def test_short_stay_is_free():
    assert parking_fee(IN, datetime(2024, 3, 4, 9, 10)) == 0


def test_exactly_grace_period_is_free():
    assert parking_fee(IN, datetime(2024, 3, 4, 9, 15)) == 0


def test_just_over_grace_period_costs_one_hour():
    assert parking_fee(IN, datetime(2024, 3, 4, 9, 16)) == 250


def test_started_hours_are_charged():
    assert parking_fee(IN, datetime(2024, 3, 4, 11, 1)) == 750


def test_daily_cap():
    assert parking_fee(IN, datetime(2024, 3, 4, 20, 0)) == 1800
    assert parking_fee(IN, datetime(2024, 3, 5, 10, 30)) == 1800 + 500


def test_negative_stay_rejected():
    with pytest.raises(ValueError):
        parking_fee(IN, datetime(2024, 3, 4, 8, 0))


def test_format_fee():
    assert format_fee(1805) == "EUR 18.05"
