import pytest

from pages import get_page, page_count


def test_page_count_rounds_up():
    assert page_count(21, 10) == 3


def test_first_page():
    assert get_page(list(range(25)), 1, 10) == list(range(10))


def test_last_page_is_partial():
    assert get_page(list(range(25)), 3, 10) == [20, 21, 22, 23, 24]


def test_page_out_of_range():
    with pytest.raises(IndexError):
        get_page(list(range(5)), 2, 10)
