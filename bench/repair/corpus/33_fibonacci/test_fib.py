import pytest
from fib import fib, fib_list


def test_first_values():
    assert fib_list(7) == [0, 1, 1, 2, 3, 5, 8]


def test_larger():
    assert fib(20) == 6765


def test_negative():
    with pytest.raises(ValueError):
        fib(-1)
