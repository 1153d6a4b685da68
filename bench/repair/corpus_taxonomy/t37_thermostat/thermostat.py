"""A programmable thermostat: setpoints by time of day, a manual override within limits,
and the heating decision with hysteresis."""

MIN_SETPOINT = 12.0
MAX_SETPOINT = 26.0
HYSTERESIS = 0.5


def clamp(value, low, high):
    return max(low, min(value, high))


class Thermostat:
    def __init__(self, schedule):
        """``schedule``: [(hour, setpoint)]; before the first hour of the day the last
        setpoint of the evening still applies."""
        self.schedule = sorted(schedule)
        self.override = None
        self.heating = False

    def set_override(self, setpoint):
        self.override = clamp(MIN_SETPOINT, setpoint, MAX_SETPOINT)

    def setpoint(self, hour):
        if self.override is not None:
            return self.override
        current = self.schedule[-1][1]
        for start, value in self.schedule:
            if hour >= start:
                current = value
        return current

    def update(self, hour, temperature):
        """Heat below the setpoint minus HYSTERESIS, stop above it plus HYSTERESIS."""
        target = self.setpoint(hour)
        if temperature < target - HYSTERESIS:
            self.heating = True
        elif temperature > target + HYSTERESIS:
            self.heating = False
        return self.heating
