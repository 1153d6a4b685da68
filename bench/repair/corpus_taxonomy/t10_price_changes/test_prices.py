import pytest
from prices import biggest_move, daily_changes, percent_change, rising_streaks


def test_rise_is_relative_to_the_previous_price():
    assert percent_change(50, 55) == pytest.approx(10.0)


def test_daily_changes_are_rounded():
    assert daily_changes([100, 110, 99]) == [10.0, -10.0]


def test_biggest_move_can_be_a_fall():
    assert biggest_move([100, 101, 90, 92]) == (2, -10.89)


def test_no_move_for_a_single_price():
    assert biggest_move([100]) is None


def test_rising_streaks():
    assert rising_streaks([1, 2, 3, 2, 3, 4, 5]) == [2, 3]


def test_zero_price():
    with pytest.raises(ZeroDivisionError):
        percent_change(0, 5)
