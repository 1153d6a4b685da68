from sorting import bubble_sort


def test_sorts():
    assert bubble_sort([3, 1, 2]) == [1, 2, 3]


def test_sorted_input():
    assert bubble_sort([1, 2, 3, 4]) == [1, 2, 3, 4]


def test_duplicates():
    assert bubble_sort([2, 1, 2, 0]) == [0, 1, 2, 2]


def test_empty():
    assert bubble_sort([]) == []
