import pytest
from limiter import SlidingWindowLimiter


def test_requests_under_limit_are_allowed():
    rl = SlidingWindowLimiter(limit=3, window=10)
    assert [rl.allow("alice", t) for t in (0, 1, 2)] == [True, True, True]


def test_request_over_limit_is_rejected():
    rl = SlidingWindowLimiter(limit=3, window=10)
    for t in (0, 1, 2):
        rl.allow("alice", t)
    assert rl.allow("alice", 3) is False


def test_window_slides():
    rl = SlidingWindowLimiter(limit=2, window=10)
    assert rl.allow("bob", 0)
    assert rl.allow("bob", 4)
    assert not rl.allow("bob", 7)
    assert rl.allow("bob", 10)  # the hit at t=0 has expired


def test_clients_are_independent():
    rl = SlidingWindowLimiter(limit=1, window=60)
    assert rl.allow("alice", 0)
    assert rl.allow("bob", 0)


def test_remaining():
    rl = SlidingWindowLimiter(limit=5, window=60)
    rl.allow("carol", 0)
    rl.allow("carol", 1)
    assert rl.remaining("carol", 2) == 3
    assert rl.remaining("dave", 2) == 5


def test_invalid_configuration():
    with pytest.raises(ValueError):
        SlidingWindowLimiter(limit=0, window=10)
