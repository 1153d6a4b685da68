import pytest
from smoothing import moving_average, spikes


def test_single_window():
    assert moving_average([2, 4, 6], 3) == [4.0]


def test_moving_average():
    assert moving_average([1, 2, 3, 4, 5], 2) == [1.5, 2.5, 3.5, 4.5]


def test_too_few_values():
    assert moving_average([1, 2], 3) == []


def test_bad_size():
    with pytest.raises(ValueError):
        moving_average([1, 2], 0)


def test_spikes():
    readings = [10, 11, 9, 10, 40, 10, 11]
    assert spikes(readings, 3) == [4]
