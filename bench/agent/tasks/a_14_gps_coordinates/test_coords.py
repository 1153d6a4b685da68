import pytest

from coords import decimal_to_dms, dms_to_decimal, format_dms


def test_whole_minutes_to_decimal():
    assert dms_to_decimal(10, 30, 0, "N") == 10.5
    assert dms_to_decimal(10, 30, 0, "S") == -10.5


def test_seconds_to_decimal():
    assert dms_to_decimal(40, 26, 46, "N") == pytest.approx(40.446111)
    assert dms_to_decimal(79, 58, 56, "W") == pytest.approx(-79.982222)


def test_hemisphere_from_sign():
    assert decimal_to_dms(-33.5)[3] == "S"
    assert decimal_to_dms(151.25, is_latitude=False)[3] == "E"
    assert decimal_to_dms(-0.5, is_latitude=False)[3] == "W"


def test_decimal_to_dms():
    assert decimal_to_dms(40.446111) == (40, 26, 46.0, "N")
    assert decimal_to_dms(-79.982222, is_latitude=False) == (79, 58, 56.0, "W")


def test_round_trip():
    for dms in [(51, 28, 40.1, "N"), (0, 7, 39.0, "W"), (35, 41, 22.2, "N")]:
        assert decimal_to_dms(dms_to_decimal(*dms), dms[3] in "NS") == dms


def test_format_dms():
    assert format_dms(48.858222) == "48°51'29.6\"N"
