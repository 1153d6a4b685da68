"""Filtering and tailing application logs made of lines such as
``2024-03-01 12:00:05 WARN disk usage at 91%``."""

from dataclasses import dataclass

LEVELS = {"DEBUG": 10, "INFO": 20, "WARN": 30, "ERROR": 40}


@dataclass(frozen=True)
class Record:
    stamp: str
    level: str
    message: str


def parse_record(line):
    day, clock, level, message = line.split(" ", 3)
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    return Record(f"{day} {clock}", level, message.strip())


def read_records(text):
    return [parse_record(line) for line in text.splitlines() if line.strip()]


def at_least(records, minimum):
    floor = LEVELS[minimum]
    return [r for r in records if LEVELS[r.level] >= floor]


def tail(records, minimum="INFO", limit=10):
    """The last ``limit`` records at level ``minimum`` or above; all of them when limit is 0."""
    selected = at_least(records, minimum)
    return selected[-limit:] if limit else records


def count_by_level(records):
    counts = dict.fromkeys(LEVELS, 0)
    for record in records:
        counts[record.level] += 1
    return counts
