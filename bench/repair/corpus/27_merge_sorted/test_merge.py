from merge import merge


def test_interleaved():
    assert merge([1, 4, 6], [2, 3, 5, 7]) == [1, 2, 3, 4, 5, 6, 7]


def test_one_empty():
    assert merge([], [1, 2]) == [1, 2]
    assert merge([1, 2], []) == [1, 2]


def test_b_longer():
    assert merge([5], [1, 2, 3, 8, 9]) == [1, 2, 3, 5, 8, 9]
