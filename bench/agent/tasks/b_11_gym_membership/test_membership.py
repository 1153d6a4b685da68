from datetime import date

from membership import add_months


def test_add_months_clamps_to_month_end():
    assert add_months(date(2023, 1, 31), 1) == date(2023, 2, 28)
    assert add_months(date(2024, 11, 15), 3) == date(2025, 2, 15)


def test_annual_expiry(annual):
    assert annual.expires_on() == date(2025, 3, 1)


def test_annual_active_in_summer(annual):
    assert annual.is_active(date(2024, 7, 15))
    assert not annual.is_active(date(2025, 3, 1))


def test_days_left(annual):
    assert annual.days_left(date(2025, 2, 1)) == 28


def test_monthly_leap_year(monthly):
    assert monthly.expires_on() == date(2024, 2, 29)
    assert monthly.days_left(date(2024, 3, 10)) == 0


def test_renew_keeps_start(monthly):
    renewed = monthly.renew(2)
    assert renewed.start == date(2024, 1, 31)
    assert renewed.expires_on() == date(2024, 4, 30)
