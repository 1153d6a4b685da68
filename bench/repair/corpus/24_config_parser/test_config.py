from config import get_int, parse_config


def test_simple():
    assert parse_config("a = 1\nb=two") == {"a": "1", "b": "two"}


def test_comments_and_blanks():
    text = "# settings\n\nport = 8080\n  # trailing comment\n"
    assert parse_config(text) == {"port": "8080"}


def test_get_int():
    assert get_int({"port": "80"}, "port") == 80
    assert get_int({}, "port", 1) == 1
