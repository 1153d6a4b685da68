import pytest
from highlights import merge, parse_range, reel_length, uncovered


def test_parse_range():
    assert parse_range("1:05-1:30") == (65, 90)
    with pytest.raises(ValueError):
        parse_range("2:00-1:00")


def test_separate_marks_stay_apart():
    assert merge([(60, 90), (0, 30)]) == [(0, 30), (60, 90)]


def test_overlapping_marks_are_merged():
    assert merge([(0, 60), (30, 120)]) == [(0, 120)]


def test_overlap_is_counted_once_in_the_reel():
    assert reel_length([(0, 60), (30, 120), (200, 220)]) == 140


def test_uncovered_parts():
    assert uncovered([(60, 90), (0, 30)], 120) == [(30, 60), (90, 120)]


def test_nothing_uncovered_under_a_long_mark():
    assert uncovered([(0, 50), (20, 120)], 120) == []
