import pytest
from matrix import matmul, transpose


def test_products_of_several_shapes():
    assert matmul([[1, 2, 3]], [[4], [5], [6]]) == [[32]]
    assert matmul([[1, 2], [3, 4]], [[5, 6], [7, 8]]) == [[19, 22], [43, 50]]
    assert matmul([[2]], [[3]]) == [[6]]
    assert matmul([[1, 0], [0, 1]], [[9, 8], [7, 6]]) == [[9, 8], [7, 6]]
    assert transpose([[1, 2, 3]]) == [[1], [2], [3]]
    with pytest.raises(ValueError):
        matmul([[1, 2]], [[1, 2]])
