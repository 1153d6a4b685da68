import pytest
from logtail import count_by_level, parse_record, read_records, tail

LOG = """\
2024-03-01 12:00:01 INFO service started
2024-03-01 12:00:02 DEBUG cache warmed
2024-03-01 12:00:05 WARN disk usage at 91%
2024-03-01 12:01:00 ERROR write failed: no space left
2024-03-01 12:01:30 INFO retrying
"""


def test_parse_record_splits_stamp_level_and_message():
    record = parse_record("2024-03-01 12:00:05 WARN disk usage at 91%")
    assert (record.stamp, record.level, record.message) == ("2024-03-01 12:00:05", "WARN", "disk usage at 91%")


def test_unknown_level_is_rejected():
    with pytest.raises(ValueError):
        parse_record("2024-03-01 12:00:05 LOUD hello")


def test_tail_keeps_the_last_records():
    assert [r.message for r in tail(read_records(LOG), limit=2)] == ["write failed: no space left", "retrying"]


def test_tail_without_limit_still_filters_by_level():
    assert [r.level for r in tail(read_records(LOG), "WARN", limit=0)] == ["WARN", "ERROR"]


def test_blank_lines_are_skipped():
    assert len(read_records("\n" + LOG + "\n\n")) == 5


def test_count_by_level():
    assert count_by_level(read_records(LOG)) == {"DEBUG": 1, "INFO": 2, "WARN": 1, "ERROR": 1}
