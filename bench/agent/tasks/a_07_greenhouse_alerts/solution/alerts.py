"""Alerting for the greenhouse sensor network.

Every sensor kind has an acceptable band; a reading outside the band
raises an alert. Sensors that report ``None`` are offline.
"""

LIMITS = {
    "temperature": (12.0, 32.0),   # degrees Celsius
    "humidity": (40.0, 85.0),      # percent
    "soil_moisture": (20.0, 60.0), # percent
}


def out_of_range(kind, value):
    """True if ``value`` lies outside the acceptable band for ``kind``."""
    low, high = LIMITS[kind]
    return value < low or value > high


def check(readings):
    """Return alert messages for a dict of {sensor_id: (kind, value)}.

    Messages are sorted by sensor id so the report is stable.
    """
    alerts = []
    for sensor_id in sorted(readings):
        kind, value = readings[sensor_id]
        if value is None:
            alerts.append(f"{sensor_id}: offline")
        elif out_of_range(kind, value):
            low, high = LIMITS[kind]
            alerts.append(f"{sensor_id}: {kind} {value} outside {low}-{high}")
    return alerts
