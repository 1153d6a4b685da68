from search_utils import find_all, first


def is_even(n):
    return n % 2 == 0


def test_find_all():
    assert find_all([1, 2, 3, 4], is_even) == [2, 4]


def test_find_none():
    assert find_all([1, 3], is_even) == []


def test_first():
    assert first([1, 3, 4, 6], is_even) == 4
    assert first([1], is_even, "none") == "none"
