import pytest
from geometry import Point, Rect


def test_from_corners_in_any_order() -> None:
    rect = Rect.from_corners(Point(4, 1), Point(1, 9))
    assert rect == Rect(1, 1, 3, 8)
    assert rect.area == 24


def test_square_and_center() -> None:
    square = Rect.square(Point(0, 0), 2)
    assert square.center == Point(0, 0)
    assert square.contains(Point(1, -1))


def test_intersection() -> None:
    a = Rect(0, 0, 4, 4)
    assert a.intersection(Rect(2, 2, 4, 4)) == Rect(2, 2, 2, 2)
    assert a.intersection(Rect(5, 5, 1, 1)) is None
    assert Point(0, 0).distance_to(Point(3, 4)) == pytest.approx(5)
