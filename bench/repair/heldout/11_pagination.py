import pytest
from pages import page_count, paginate


def test_pages_cover_every_item_once():
    items = list(range(23))
    pages = [paginate(items, p, per_page=5) for p in range(1, page_count(23, 5) + 1)]
    assert [len(p) for p in pages] == [5, 5, 5, 5, 3]
    assert sum(pages, []) == items
    assert paginate(["a"], 1) == ["a"]
    with pytest.raises(ValueError):
        paginate(items, 6, per_page=5)
    with pytest.raises(ValueError):
        paginate(items, 0)
