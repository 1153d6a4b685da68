import pytest
from tram import fare, nearest_stop, route_length, stops_between, trip_fare


def test_outbound_route():
    assert route_length([0.0, 1.5, 4.0]) == pytest.approx(4.0)


def test_going_back_counts_as_distance_too():
    assert route_length([4.0, 1.5, 6.5]) == pytest.approx(7.5)


def test_nearest_stop():
    assert nearest_stop(3.1) == "Station"


def test_fare_is_capped():
    assert fare(2) == 1.5
    assert fare(100) == 4.5


def test_inbound_trip_costs_the_same_as_outbound():
    assert trip_fare(["Station", "Depot"]) == trip_fare(["Depot", "Station"]) == 1.8


def test_stops_between_either_direction():
    assert stops_between("Harbour", "Market") == ["Market", "Station", "Harbour"]
