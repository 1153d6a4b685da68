from datetime import date

from dates import days_between, parse_day, weekdays_between


def test_single_day():
    assert days_between(date(2024, 1, 1), date(2024, 1, 1)) == [date(2024, 1, 1)]


def test_three_days():
    days = days_between(date(2024, 2, 28), date(2024, 3, 1))
    assert days == [date(2024, 2, 28), date(2024, 2, 29), date(2024, 3, 1)]


def test_weekdays():
    assert len(weekdays_between(date(2024, 1, 1), date(2024, 1, 7))) == 5


def test_parse():
    assert parse_day("2024-03-05") == date(2024, 3, 5)
