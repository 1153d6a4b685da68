import pytest
from sensors import Summary, out_of_range, summarize, summarize_all


def test_summary_of_one_line():
    assert summarize("s1,21.5,21.7,,22.0") == Summary("s1", 3, 21.5, 22.0, 21.73)


def test_line_without_readings():
    with pytest.raises(ValueError):
        summarize("s2,,,")


def test_summarize_all_skips_blank_lines():
    summaries = summarize_all("s1,20,21\n\ns2,19.5\n")
    assert [(s.sensor, s.count) for s in summaries] == [("s1", 2), ("s2", 1)]


def test_out_of_range_sensors():
    summaries = summarize_all("s1,20,21\ns2,19.5,30.1\ns3,-2.0,18")
    assert out_of_range(summaries, 0, 30) == ["s2", "s3"]
