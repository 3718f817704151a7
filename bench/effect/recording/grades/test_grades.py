import pytest
from grades import Gradebook, letter

ROWS = ["# class 3b", "ann: 95, 91", "", "bob: 72, 68, 80", "cy: 55", "dee:"]


def test_letters() -> None:
    assert [letter(s) for s in (100, 90, 89.5, 60, 0)] == ["A", "A", "B", "D", "F"]
    with pytest.raises(ValueError):
        letter(101)


def test_from_rows_and_distribution() -> None:
    book = Gradebook.from_rows(ROWS)
    assert sorted(book.students) == ["ann", "bob", "cy", "dee"]
    assert book.distribution() == {"A": 1, "B": 0, "C": 1, "D": 0, "F": 2}


def test_top() -> None:
    book = Gradebook.from_rows(ROWS)
    assert book.top(2) == ["ann", "bob"]
