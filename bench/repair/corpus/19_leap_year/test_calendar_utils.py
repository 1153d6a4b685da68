from calendar_utils import days_in_month, days_in_year, is_leap


def test_leap_years():
    assert is_leap(2024)
    assert is_leap(2000)


def test_common_years():
    assert not is_leap(1900)
    assert not is_leap(2023)


def test_february():
    assert days_in_month(2024, 2) == 29
    assert days_in_year(2023) == 365
