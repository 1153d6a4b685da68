"""Summaries of sensor readings sent as comma-separated lines: 'sensor-7,21.5,21.7,,22.0'."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    sensor: str
    count: int
    low: float
    high: float
    mean: float


def readings(fields):
    """The numbers among ``fields``; an empty field is a missing reading."""
    return (float(field) for field in fields if field.strip())


def summarize(line):
    sensor, *fields = line.strip().split(",")
    values = readings(fields)
    if not values:
        raise ValueError(f"{sensor}: no readings")
    mean = round(sum(values) / len(values), 2)
    return Summary(sensor, len(values), min(values), max(values), mean)


def summarize_all(text):
    return [summarize(line) for line in text.splitlines() if line.strip()]


def out_of_range(summaries, low, high):
    """Sensors that reported anything outside [low, high]."""
    return [s.sensor for s in summaries if s.low < low or s.high > high]
