from datetime import date, datetime

from timesheet import flagged_shifts, hours_by_week, shift_hours, weekly_pay


def test_shift_hours_subtracts_break():
    assert shift_hours(datetime(2024, 2, 5, 7, 0), datetime(2024, 2, 5, 15, 30)) == 8.0


def test_hours_by_week():
    days = {date(2024, 2, 5): 8, date(2024, 2, 9): 7.5, date(2024, 2, 12): 6}
    assert hours_by_week(days) == {(2024, 6): 15.5, (2024, 7): 6}


def test_weekly_pay_without_overtime():
    assert weekly_pay(30, 20.0) == 600.0


def test_weekly_pay_with_overtime():
    assert weekly_pay(42, 20.0) == 38 * 20.0 + 4 * 25.0


def test_flagged_shifts():
    assert flagged_shifts({date(2024, 2, 5): 13, date(2024, 2, 6): 8}) == [date(2024, 2, 5)]
