"""Convert GPS coordinates between decimal degrees and degrees/minutes/seconds.

Old handheld GPS units export waypoints as DMS (40°26'46"N); the mapping
app stores decimal degrees (40.446111). Southern latitudes and western
longitudes are negative in decimal form.
"""


def dms_to_decimal(degrees, minutes, seconds, hemisphere):
    """(40, 26, 46, 'N') -> 40.446111 (rounded to 6 decimal places)."""
    value = abs(degrees) + minutes / 60 + seconds / 60
    if hemisphere.upper() in ("S", "W"):
        value = -value
    return round(value, 6)


def decimal_to_dms(value, is_latitude=True):
    """40.446111 -> (40, 26, 46.0, 'N'); seconds are rounded to 0.1."""
    if is_latitude:
        hemisphere = "N" if value >= 0 else "S"
    else:
        hemisphere = "E" if value >= 0 else "W"
    value = abs(value)
    degrees = int(value)
    minutes_float = (value - degrees) * 60
    minutes = int(minutes_float)
    seconds = round((value - minutes) * 60, 1)
    return degrees, minutes, seconds, hemisphere


def format_dms(value, is_latitude=True):
    """Human readable form, e.g. 40°26'46.0"N."""
    degrees, minutes, seconds, hemisphere = decimal_to_dms(value, is_latitude)
    return f"{degrees}°{minutes}'{seconds}\"{hemisphere}"
