from search import binary_search


def test_finds_middle():
    assert binary_search([1, 3, 5, 7, 9], 5) == 2


def test_finds_first():
    assert binary_search([1, 3, 5, 7, 9], 1) == 0


def test_missing_large():
    assert binary_search([1, 3, 5, 7, 9], 10) == -1


def test_missing_small():
    assert binary_search([1, 3, 5], 0) == -1


def test_empty():
    assert binary_search([], 4) == -1


def test_finds_every_element():
    items = [2, 4, 6, 8, 10, 12, 14]
    for i, x in enumerate(items):
        assert binary_search(items, x) == i
