import pytest
from pages import page_count, paginate

ITEMS = list(range(25))


def test_page_count():
    assert page_count(25, 10) == 3
    assert page_count(0, 10) == 1


def test_first_page():
    assert paginate(ITEMS, 1) == list(range(10))


def test_last_page():
    assert paginate(ITEMS, 3) == [20, 21, 22, 23, 24]


def test_bad_page():
    with pytest.raises(ValueError):
        paginate(ITEMS, 4)
