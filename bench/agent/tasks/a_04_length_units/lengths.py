"""Length conversions for the fabric-cutting planner.

Customers enter lengths in whatever unit they like ("2.5 yd", "90 cm");
the cutting machine works in millimetres.
"""
import re

# How many metres one of each unit is worth.
METRES_PER_UNIT = {
    "mm": 0.001,
    "cm": 0.01,
    "m": 1.0,
    "in": 0.0254,
    "ft": 0.3048,
    "yd": 0.9144,
}

_LENGTH_RE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*([a-z]+)\s*$")


def convert(value, from_unit, to_unit):
    """Convert ``value`` from ``from_unit`` to ``to_unit``."""
    try:
        metres = value * METRES_PER_UNIT[from_unit]
        target = METRES_PER_UNIT[to_unit]
    except KeyError as exc:
        raise ValueError(f"unknown unit: {exc.args[0]}") from None
    return metres * target


def parse_length(text):
    """Parse '2.5 yd' into (2.5, 'yd')."""
    match = _LENGTH_RE.match(text.lower())
    if not match:
        raise ValueError(f"cannot parse length: {text!r}")
    return float(match.group(1)), match.group(2)


def to_millimetres(text):
    """Length entered by the customer, as whole millimetres for the cutter."""
    value, unit = parse_length(text)
    return round(convert(value, unit, "mm"))
