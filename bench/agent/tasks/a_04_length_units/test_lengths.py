import pytest

from lengths import convert, parse_length, to_millimetres


def test_same_unit_is_unchanged():
    assert convert(3.0, "m", "m") == 3.0


def test_centimetres_to_metres():
    assert convert(250, "cm", "m") == pytest.approx(2.5)


def test_metres_to_centimetres():
    assert convert(1.2, "m", "cm") == pytest.approx(120.0)


def test_feet_to_inches():
    assert convert(2, "ft", "in") == pytest.approx(24.0)


def test_parse_length():
    assert parse_length(" 2.5 YD ") == (2.5, "yd")
    with pytest.raises(ValueError):
        parse_length("two metres")


def test_unknown_unit():
    with pytest.raises(ValueError):
        convert(1, "m", "furlong")


def test_to_millimetres():
    assert to_millimetres("90 cm") == 900
    assert to_millimetres("1 yd") == 914
