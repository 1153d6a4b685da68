import pytest
from matrix import matmul, transpose


def test_transpose():
    assert transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]


def test_identity():
    assert matmul([[1, 0], [0, 1]], [[5, 6], [7, 8]]) == [[5, 6], [7, 8]]


def test_product():
    assert matmul([[1, 2], [3, 4]], [[5, 6], [7, 8]]) == [[19, 22], [43, 50]]


def test_mismatch():
    with pytest.raises(ValueError):
        matmul([[1, 2]], [[1, 2]])
