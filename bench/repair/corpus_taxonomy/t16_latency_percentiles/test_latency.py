import pytest
from latency import format_report, percentile, slow_share


def test_percentile_rounds_the_rank_up():
    assert percentile([15, 20, 35, 40, 50], 30) == 20


def test_low_percentile_of_a_small_sample_is_the_minimum():
    assert percentile([3, 1, 2], 10) == 1


def test_hundredth_percentile_is_the_maximum():
    assert percentile([15, 20, 35, 40, 50], 100) == 50


def test_bad_input():
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1], 0)


def test_slow_share():
    assert slow_share([100, 250, 300, 90], 200) == 0.5


def test_report_line():
    assert format_report(list(range(1, 101))) == "n=100 p50=50ms p90=90ms p99=99ms"
