from search import binary_search


def test_every_position_and_absent_targets_around_them():
    items = [2, 4, 6, 8, 10, 12, 14]
    for i, v in enumerate(items):
        assert binary_search(items, v) == i
    for v in (1, 3, 9, 15, 100):
        assert binary_search(items, v) == -1
    assert binary_search([], 5) == -1
    assert binary_search([5], 5) == 0
