"""Distances and fares along a tram line; stops are given by their kilometre mark from the depot."""

STOPS = {"Depot": 0.0, "Market": 1.5, "Station": 4.0, "Harbour": 6.5, "Beach": 9.0}


def route_length(marks):
    """Kilometres travelled visiting the kilometre ``marks`` in the given order."""
    return sum(b - a for a, b in zip(marks, marks[1:]))


def nearest_stop(position, stops=STOPS):
    return min(stops, key=lambda name: abs(stops[name] - position))


def fare(km, base=1.20, per_km=0.15, cap=4.50):
    return round(min(base + per_km * km, cap), 2)


def trip_fare(names, stops=STOPS):
    """Fare of a trip through the named stops, in order."""
    return fare(route_length([stops[name] for name in names]))


def stops_between(first, last, stops=STOPS):
    low, high = sorted((stops[first], stops[last]))
    return [name for name, km in sorted(stops.items(), key=lambda item: item[1]) if low <= km <= high]
