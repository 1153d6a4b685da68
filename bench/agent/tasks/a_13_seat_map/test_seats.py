import pytest

from seats import seat_index, seat_label, seat_type


def test_first_seat_label():
    assert seat_label(0) == "1A"
    assert seat_label(5) == "1F"


def test_label_later_rows():
    assert seat_label(6) == "2A"
    assert seat_label(68) == "12C"


def test_index_from_label():
    assert seat_index("1A") == 0
    assert seat_index(" 12c ") == 68


def test_round_trip():
    for index in range(0, 200):
        assert seat_index(seat_label(index)) == index


def test_invalid_labels():
    for bad in ("", "12", "0A", "3G", "AB"):
        with pytest.raises(ValueError):
            seat_index(bad)


def test_seat_type():
    assert seat_type("14A") == "window"
    assert seat_type("14d") == "aisle"
    assert seat_type("14E") == "middle"
