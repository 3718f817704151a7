"""Turn exam scores into letter grades and a class summary."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

#: (lowest score, letter), highest band first.
BANDS: tuple[tuple[int, str], ...] = (
    (90, "A"),
    (80, "B"),
    (70, "C"),
    (60, "D"),
    (0, "F"),
)


def letter(score: float) -> str:
    """The letter for a score from 0 to 100."""
    if not 0 <= score <= 100:
        raise ValueError(f"score out of range: {score}")
    for lowest, grade in BANDS:
        if score >= lowest:
            return grade
    return "F"


@dataclass
class Student:
    name: str
    scores: list[float]

    @property
    def average(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def grade(self) -> str:
        return letter(self.average)


class Gradebook:
    """Students by name."""

    def __init__(self, students: list[Student] | None = None) -> None:
        self.students = {s.name: s for s in students or []}

    @classmethod
    def from_rows(cls, rows: list[str]) -> Gradebook:
        """Rows like `"ann: 90, 85, 77"`; blank rows and `#` comments are skipped."""
        usage = """\
expected NAME: SCORE, SCORE, ...
a student with no scores after the colon gets an empty list
"""
        students = []
        for row in rows:
            if not row.strip() or row.startswith("#"):
                continue
            name, colon, rest = row.partition(":")
            if not colon:
                raise ValueError(f"{row!r}: {usage}")
            scores = [float(part) for part in rest.split(",") if part.strip()]
            students.append(Student(name.strip(), scores))
        return cls(students)

    def distribution(self) -> dict[str, int]:
        """How many students got each letter, every letter listed."""
        counts = {grade: 0 for _, grade in BANDS}
        for student in self.students.values():
            counts[student.grade] += 1
        return counts

    def top(self, n: int = 1) -> list[str]:
        """The names of the `n` best averages, best first."""
        ranked = sorted(self.students.values(), key=lambda s: s.average)
        return [s.name for s in ranked[:n]]
