from datetime import date

import pytest

from renewals import add_months, next_renewal


def test_add_months_clamps_to_month_end():
    assert add_months(date(2024, 1, 31), 1) == date(2024, 2, 29)
    assert add_months(date(2023, 1, 31), 1) == date(2023, 2, 28)


def test_add_months_crosses_year():
    assert add_months(date(2023, 11, 15), 3) == date(2024, 2, 15)


def test_monthly_plan():
    assert next_renewal(date(2024, 5, 10), "monthly") == date(2024, 6, 10)


def test_quarterly_plan():
    assert next_renewal(date(2024, 1, 15), "quarterly") == date(2024, 4, 15)
    assert next_renewal(date(2024, 11, 30), "quarterly") == date(2025, 2, 28)


def test_yearly_plan():
    assert next_renewal(date(2024, 2, 29), "yearly") == date(2025, 2, 28)


def test_unknown_plan():
    with pytest.raises(ValueError):
        next_renewal(date(2024, 1, 1), "weekly")
