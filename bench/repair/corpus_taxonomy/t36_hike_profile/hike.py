"""Elevation profile of a hike from GPS points (distance in km, elevation in m)."""


def climbs(points):
    """Elevation change between consecutive points, in metres."""
    return [b[1] - a[1] for a, b in zip(points, points[1:])]


def ascent(points):
    return sum(d for d in climbs(points) if d > 0)


def descent(points):
    """Metres walked downhill, as a positive number."""
    return sum(d for d in climbs(points) if d < 0)


def steepest_grade(points):
    """The steepest climb or drop between two points, in percent (negative downhill)."""
    best = 0.0
    for (d1, e1), (d2, e2) in zip(points, points[1:]):
        if d2 == d1:
            continue
        grade = (e2 - e1) / ((d2 - d1) * 1000) * 100
        if abs(grade) > abs(best):
            best = grade
    return round(best, 1)


def naismith_hours(points, speed_kmh=5.0):
    """Walking time by Naismith's rule: 1 h per 5 km, plus 1 h per 600 m of ascent."""
    distance = points[-1][0] - points[0][0]
    return round(distance / speed_kmh + ascent(points) / 600, 2)
