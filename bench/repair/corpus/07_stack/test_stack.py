import pytest
from stack import Stack


def test_push_peek():
    s = Stack()
    s.push(1)
    s.push(2)
    assert s.peek() == 2
    assert len(s) == 2


def test_pop_order():
    s = Stack()
    for x in "abc":
        s.push(x)
    assert [s.pop(), s.pop(), s.pop()] == ["c", "b", "a"]


def test_pop_empty():
    with pytest.raises(IndexError):
        Stack().pop()
