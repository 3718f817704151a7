"""Points and rectangles on a plane, with the few operations a layout engine needs."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    x: float
    y: float

    def distance_to(self, other: Point) -> float:
        """Straight-line distance between two points."""
        return math.hypot(self.x - other.x, self.y - other.y)

    def moved(self, dx: float, dy: float) -> Point:
        return Point(self.x + dx, self.y + dy)


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle: its top-left corner, a width and a height."""

    left: float
    top: float
    width: float
    height: float

    @classmethod
    def from_corners(cls, a: Point, b: Point) -> Rect:
        """The rectangle with opposite corners `a` and `b`, in any order."""
        left = min(a.x, b.x)
        top = min(a.y, b.y)
        return cls(left, top, abs(a.x - b.x), abs(a.y - b.x))

    @classmethod
    def square(cls, center: Point, side: float) -> Rect:
        half = side / 2
        return cls(center.x - half, center.y - half, side, side)

    @property
    def right(self) -> float:
        return self.left + self.width

    @property
    def bottom(self) -> float:
        return self.top + self.height

    @property
    def area(self) -> float:
        return self.width * self.height

    @property
    def center(self) -> Point:
        return Point(self.left + self.width / 2, self.top + self.height / 2)

    def contains(self, point: Point) -> bool:
        """Whether `point` lies inside or on the edge."""
        return self.left <= point.x <= self.right and self.top <= point.y <= self.bottom

    def intersection(self, other: Rect) -> Rect | None:
        """The overlap of two rectangles, or None when they do not overlap."""
        left = max(self.left, other.left)
        top = max(self.top, other.top)
        right = min(self.right, other.right)
        bottom = min(self.bottom, other.bottom)
        if right <= left or bottom <= top:
            return None
        return Rect(left, top, right - left, bottom - top)
