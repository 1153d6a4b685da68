import pytest
from colors import contrast, lighten, parse_hex, to_hex


def test_parse_full_form():
    assert parse_hex("#ff8000") == (255, 128, 0)


def test_parse_short_form():
    assert parse_hex("#fff") == (255, 255, 255)


def test_round_trip():
    assert to_hex(parse_hex("#1a2b3c")) == "#1a2b3c"


def test_lighten_half_way_to_white():
    assert lighten("#000000", 0.5) == "#808080"


def test_black_on_white_has_the_highest_contrast():
    assert contrast("#000", "#ffffff") == pytest.approx(21.0)


def test_not_a_colour():
    with pytest.raises(ValueError):
        parse_hex("#12345")
