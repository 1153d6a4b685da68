import pytest
from clamp import clamp, clamp_all


def test_inside():
    assert clamp(5, 0, 10) == 5


def test_outside():
    assert clamp_all([-3, 15], 0, 10) == [0, 10]


def test_bad_interval():
    with pytest.raises(ValueError):
        clamp(1, 5, 0)
