import pytest

from split import format_cents, payback_summary, split_evenly


def test_even_split():
    assert split_evenly(1200, 4) == [300, 300, 300, 300]


def test_shares_add_up_to_total():
    for total, people in [(1000, 3), (1001, 3), (999, 4), (5, 3), (2, 5)]:
        assert sum(split_evenly(total, people)) == total, (total, people)


def test_extra_cents_go_to_the_first_people():
    assert split_evenly(1000, 3) == [334, 333, 333]
    assert split_evenly(1002, 4) == [251, 251, 250, 250]


def test_invalid_people():
    with pytest.raises(ValueError):
        split_evenly(100, 0)


def test_format_cents():
    assert format_cents(1234) == "12.34"
    assert format_cents(5) == "0.05"
    assert format_cents(-250) == "-2.50"


def test_payback_summary():
    assert payback_summary(1000, ["Ann", "Ben", "Cat"]) == ["Ben owes 3.33", "Cat owes 3.33"]
