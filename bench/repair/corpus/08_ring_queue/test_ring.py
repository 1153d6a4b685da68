import pytest
from ring import RingQueue


def test_fifo():
    q = RingQueue(3)
    q.enqueue(1)
    q.enqueue(2)
    assert q.dequeue() == 1
    assert q.dequeue() == 2


def test_wraps_around():
    q = RingQueue(2)
    q.enqueue("a")
    q.dequeue()
    q.enqueue("b")
    q.enqueue("c")
    assert [q.dequeue(), q.dequeue()] == ["b", "c"]


def test_full():
    q = RingQueue(2)
    q.enqueue(1)
    q.enqueue(2)
    assert q.is_full()
    with pytest.raises(OverflowError):
        q.enqueue(3)
