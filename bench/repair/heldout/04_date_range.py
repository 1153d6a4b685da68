from datetime import date

from dates import days_between, parse_day, weekdays_between


def test_both_ends_included():
    assert days_between(date(2024, 2, 28), date(2024, 3, 1)) == [date(2024, 2, 28), date(2024, 2, 29),
                                                                 date(2024, 3, 1)]
    assert days_between(date(2024, 5, 5), date(2024, 5, 5)) == [date(2024, 5, 5)]
    assert len(weekdays_between(parse_day("2024-01-01"), parse_day("2024-01-07"))) == 5
    assert weekdays_between(date(2024, 1, 6), date(2024, 1, 7)) == []
