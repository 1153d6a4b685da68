from thermostat import Thermostat

SCHEDULE = [(22, 16.0), (6, 20.0)]


def test_schedule_by_hour():
    thermostat = Thermostat(SCHEDULE)
    assert [thermostat.setpoint(h) for h in (3, 6, 13, 22)] == [16.0, 20.0, 20.0, 16.0]


def test_override_wins_over_the_schedule():
    thermostat = Thermostat(SCHEDULE)
    thermostat.set_override(21.5)
    assert thermostat.setpoint(23) == 21.5


def test_override_is_capped():
    thermostat = Thermostat(SCHEDULE)
    thermostat.set_override(30)
    assert thermostat.setpoint(12) == 26.0


def test_override_has_a_floor():
    thermostat = Thermostat(SCHEDULE)
    thermostat.set_override(5)
    assert thermostat.setpoint(12) == 12.0


def test_hysteresis():
    thermostat = Thermostat(SCHEDULE)
    assert thermostat.update(7, 19.4) is True
    assert thermostat.update(7, 20.3) is True
    assert thermostat.update(7, 20.6) is False
