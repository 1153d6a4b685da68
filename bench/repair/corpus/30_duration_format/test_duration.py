from duration import format_duration, parse_duration


def test_format():
    assert format_duration(3725) == "1:02:05"


def test_under_a_minute():
    assert format_duration(42) == "0:00:42"


def test_roundtrip():
    assert parse_duration(format_duration(86399)) == 86399
