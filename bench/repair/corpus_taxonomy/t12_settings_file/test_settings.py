import pytest
from settings import load, parse_settings


def test_plain_pairs():
    assert parse_settings("HOST=localhost\nPORT = 8080\n") == {"HOST": "localhost", "PORT": "8080"}


def test_comments_and_blank_lines_are_ignored():
    assert parse_settings("# db\n\nUSER=app\n") == {"USER": "app"}


def test_value_may_contain_equals_signs():
    assert parse_settings("QUERY=a=1&b=2") == {"QUERY": "a=1&b=2"}


def test_quotes_are_removed():
    assert parse_settings("NAME=\"My App\"\nMOTTO='fast'") == {"NAME": "My App", "MOTTO": "fast"}


def test_line_without_equals_sign_is_reported():
    with pytest.raises(ValueError, match="line 2"):
        parse_settings("A=1\nnonsense\n")


def test_references_are_expanded():
    text = "HOME=/srv/app\nLOGS=${HOME}/logs\nURL=https://example.org/?next=${HOME}"
    assert load(text) == {"HOME": "/srv/app", "LOGS": "/srv/app/logs",
                          "URL": "https://example.org/?next=/srv/app"}
