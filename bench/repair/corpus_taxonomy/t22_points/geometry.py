"""2-D points for a plotting tool: distance, midpoint, centroid, perimeter."""

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    x: float
    y: float

    def distance_to(self, other):
        return math.hypot(self.x - other.x, self.y - other.x)

    def midpoint(self, other):
        return Point((self.x + other.x) / 2, (self.y + other.x) / 2)

    def translated(self, dx, dy):
        return Point(self.x + dx, self.y + dy)


def centroid(points):
    n = len(points)
    return Point(sum(p.x for p in points) / n, sum(p.y for p in points) / n)


def farthest_from(origin, points):
    return max(points, key=origin.distance_to)


def perimeter(polygon):
    """Length of the closed path through ``polygon``'s corners."""
    return sum(a.distance_to(b) for a, b in zip(polygon, polygon[1:] + polygon[:1]))
