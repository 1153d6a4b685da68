import pytest
from chunks import chunks


def test_even():
    assert chunks([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]


def test_remainder():
    assert chunks([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]


def test_single():
    assert chunks([7], 3) == [[7]]


def test_bad_size():
    with pytest.raises(ValueError):
        chunks([1], 0)
