import pytest
from geometry import Point, centroid, farthest_from, perimeter


def test_distance():
    assert Point(0, 0).distance_to(Point(3, 4)) == 5


def test_midpoint():
    assert Point(0, 0).midpoint(Point(4, 2)) == Point(2, 1)


def test_translated():
    assert Point(1, 1).translated(2, -3) == Point(3, -2)


def test_centroid_of_a_triangle():
    assert centroid([Point(0, 0), Point(6, 0), Point(0, 3)]) == Point(2, 1)


def test_perimeter_of_a_rectangle():
    assert perimeter([Point(0, 0), Point(2, 0), Point(2, 1), Point(0, 1)]) == pytest.approx(6)


def test_farthest_point():
    assert farthest_from(Point(0, 0), [Point(1, 1), Point(0, 5), Point(4, 0)]) == Point(0, 5)
