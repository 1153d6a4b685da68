from datetime import date

import pytest
from rota import Rota

START = date(2024, 4, 1)  # a Monday


def weekly():
    return Rota(["ada", "bo", "cy"], START)


def test_first_shift():
    assert weekly().on_call(START) == "ada"
    assert weekly().on_call(date(2024, 4, 7)) == "ada"


def test_next_shift():
    assert weekly().on_call(date(2024, 4, 8)) == "bo"
    assert weekly().on_call(date(2024, 4, 15)) == "cy"


def test_rotation_wraps_around():
    assert weekly().on_call(date(2024, 4, 22)) == "ada"
    assert weekly().on_call(date(2024, 5, 1)) == "bo"


def test_override_wins():
    rota = Rota(["ada", "bo"], START, overrides={date(2024, 4, 3): "dee"})
    assert rota.on_call(date(2024, 4, 3)) == "dee"
    assert rota.on_call(date(2024, 4, 4)) == "ada"


def test_short_shifts_schedule():
    rota = Rota(["ada", "bo"], START, shift_days=2)
    names = [name for _, name in rota.schedule(START, 5)]
    assert names == ["ada", "ada", "bo", "bo", "ada"]


def test_before_start_is_an_error():
    with pytest.raises(ValueError):
        weekly().on_call(date(2024, 3, 31))
