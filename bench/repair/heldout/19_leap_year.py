from calendar_utils import days_in_month, days_in_year, is_leap


def test_the_four_rules():
    assert [is_leap(y) for y in (2024, 2023, 1900, 2000, 2100, 2400)] == [True, False, False, True, False, True]
    assert days_in_year(2000) == 366 and days_in_year(1900) == 365
    assert days_in_month(2100, 2) == 28 and days_in_month(2024, 4) == 30
