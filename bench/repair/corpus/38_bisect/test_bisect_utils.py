from bisect_utils import bisect_left, insert_sorted


def test_empty():
    assert bisect_left([], 3) == 0


def test_front():
    assert bisect_left([2, 4, 6], 1) == 0


def test_middle():
    assert bisect_left([1, 3, 5, 7], 4) == 2


def test_insert():
    assert insert_sorted([1, 3, 5], 4) == [1, 3, 4, 5]
