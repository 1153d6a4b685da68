import pytest
from stack import Stack


def test_last_in_first_out_to_empty():
    s = Stack()
    for v in "abc":
        s.push(v)
    assert s.peek() == "c"
    assert [s.pop(), s.pop()] == ["c", "b"]
    s.push("d")
    assert [s.pop(), s.pop()] == ["d", "a"]
    assert len(s) == 0 and s.peek() is None
    with pytest.raises(IndexError):
        s.pop()
