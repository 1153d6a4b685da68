import pytest
from backoff import delays, total_wait


def test_bad_arguments():
    with pytest.raises(ValueError):
        delays(0, 2, 10)
    with pytest.raises(ValueError):
        delays(1, 1, 10)


def test_first_delay_already_at_cap():
    assert delays(30, 2, 30) == [30]


def test_doubling():
    assert delays(1, 2, 10) == [1, 2, 4, 8, 10]


def test_total_wait():
    assert total_wait(0.5, 3, 5) == 0.5 + 1.5 + 4.5 + 5
