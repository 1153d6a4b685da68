import pytest
from theatre import SeatMap


def test_new_map_has_every_seat_free():
    assert SeatMap(2, 3).free_seats() == ["A1", "A2", "A3", "B1", "B2", "B3"]


def test_booking_takes_that_seat():
    seats = SeatMap(3, 4)
    seats.book("A3")
    assert not seats.is_free("A3")
    assert "A3" not in seats.free_seats()
    assert len(seats.free_seats()) == 11


def test_last_seat_of_the_last_row():
    seats = SeatMap(3, 4)
    seats.book("C4")
    assert seats.free_seats()[-1] == "C3"


def test_double_booking_is_refused():
    seats = SeatMap(3, 4)
    seats.book("B2")
    with pytest.raises(ValueError):
        seats.book("B2")


def test_unknown_seats():
    seats = SeatMap(3, 4)
    for label in ("D1", "A5", "A0", "?"):
        with pytest.raises(KeyError):
            seats.book(label)


def test_occupancy():
    seats = SeatMap(2, 2)
    seats.book("a1")
    assert seats.occupancy() == 0.25
