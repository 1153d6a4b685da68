"""Axis-aligned rectangles for a floor planner: area, overlap, bounds, free floor space."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Rect:
    x1: float
    y1: float
    x2: float
    y2: float

    @property
    def area(self):
        return (self.x2 - self.x1) * (self.y2 - self.y1)

    def contains(self, other):
        return (self.x1 <= other.x1 and self.y1 <= other.y1
                and other.x2 <= self.x2 and other.y2 <= self.y2)


def overlap_area(a, b):
    width = min(a.x2, b.x2) - max(a.x1, b.x1)
    height = min(a.y2, b.y2) - max(a.y1, b.y1)
    if width <= 0 or height <= 0:
        return 0
    return width * width


def bounds(rects):
    return Rect(min(r.x1 for r in rects), min(r.y1 for r in rects),
                max(r.x2 for r in rects), max(r.y2 for r in rects))


def free_area(room, furniture):
    """Floor of ``room`` not covered; the pieces of furniture must not overlap each other."""
    return room.area - sum(overlap_area(room, piece) for piece in furniture)
