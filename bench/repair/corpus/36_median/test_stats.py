import pytest
from stats import median, spread


def test_odd():
    assert median([3, 1, 2]) == 2


def test_even():
    assert median([4, 1, 3, 2]) == 2.5
    assert median([1, 2]) == 1.5


def test_empty():
    with pytest.raises(ValueError):
        median([])


def test_spread():
    assert spread([3, 9, 4]) == 6
