from datetime import datetime, timedelta

from slots import first_free_slot, free_slots, overlaps


def at(hh, mm=0):
    return datetime(2024, 6, 3, hh, mm)


HOUR = timedelta(hours=1)


def test_overlaps_is_half_open():
    assert overlaps(at(9), at(10), at(9, 30), at(11))
    assert not overlaps(at(9), at(10), at(10), at(11))


def test_empty_calendar():
    assert free_slots([], at(9), at(10), timedelta(minutes=30)) == [at(9), at(9, 15), at(9, 30)]


def test_busy_morning_pushes_first_slot():
    busy = [(at(9), at(10, 30))]
    assert first_free_slot(busy, at(9), at(17), HOUR) == at(10, 30)


def test_slots_around_meetings():
    busy = [(at(9, 30), at(10)), (at(11), at(12))]
    assert free_slots(busy, at(9), at(12), HOUR) == [at(10)]


def test_full_day_returns_none():
    busy = [(at(8), at(18))]
    assert first_free_slot(busy, at(9), at(17), HOUR) is None
