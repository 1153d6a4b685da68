import pytest

from backoff import backoff_delays, retry_times, total_wait


def test_first_delay_is_base():
    assert backoff_delays(3, base=1.0)[0] == 1.0


def test_one_delay_per_retry():
    assert backoff_delays(4, base=1.0) == [1.0, 2.0, 4.0, 8.0]


def test_delays_are_capped():
    delays = backoff_delays(8, base=1.0, cap=10.0)
    assert max(delays) == 10.0


def test_no_retries():
    assert backoff_delays(0) == []


def test_negative_retries_rejected():
    with pytest.raises(ValueError):
        backoff_delays(-1)


def test_total_wait():
    assert total_wait(3, base=0.5) == pytest.approx(3.5)


def test_retry_times():
    assert retry_times(100.0, 3, base=1.0) == [101.0, 103.0, 107.0]
