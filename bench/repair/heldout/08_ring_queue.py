import pytest
from ring import RingQueue


def test_fills_to_capacity_wraps_and_refuses_more():
    q = RingQueue(3)
    for v in (1, 2, 3):
        q.enqueue(v)
    assert q.is_full()
    with pytest.raises(OverflowError):
        q.enqueue(4)
    assert q.dequeue() == 1
    assert not q.is_full()
    q.enqueue(4)
    assert [q.dequeue(), q.dequeue(), q.dequeue()] == [2, 3, 4]
    with pytest.raises(IndexError):
        q.dequeue()
