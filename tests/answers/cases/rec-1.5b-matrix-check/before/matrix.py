"""Small dense matrices of floats, for the geometry code that cannot pull in numpy."""

from __future__ import annotations

from collections.abc import Sequence


class Matrix:
    """A rows x cols matrix stored row by row."""

    def __init__(self, rows: Sequence[Sequence[float]]) -> None:
        widths = {len(row) for row in rows}
        if len(widths) != 1:
            raise ValueError("every row must have the same length")
        self.rows = [list(map(float, row)) for row in rows]

    @classmethod
    def identity(cls, size: int) -> Matrix:
        return cls([[1.0 if i == j else 0.0 for j in range(size)] for i in range(size)])

    @classmethod
    def zeros(cls, rows: int, cols: int) -> Matrix:
        return cls([[0.0] * cols for _ in range(rows)])

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.rows[0])

    def __getitem__(self, index: tuple[int, int]) -> float:
        row, col = index
        return self.rows[row][col]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Matrix) and self.rows == other.rows

    def __add__(self, other: Matrix) -> Matrix:
        if self.shape != other.shape:
            raise ValueError(f"shapes differ: {self.shape} and {other.shape}")
        return Matrix(
            [
                [a + b for a, b in zip(r, s, strict=True)]
                for r, s in zip(self.rows, other.rows, strict=True)
            ]
        )

    def __matmul__(self, other: Matrix) -> Matrix:
        """The matrix product; the inner sizes must agree."""
        n, m = self.shape
        m2, p = other.shape
        if m != m2:
            raise ValueError(f"cannot multiply {self.shape} by {other.shape}")
        result = Matrix.zeros(n, p)
        for i in range(n):
            for j in range(p):
                result.rows[i][j] = sum(self[i, k] * other[j, k] for k in range(m))
        return result

    def transpose(self) -> Matrix:
        n, m = self.shape
        return Matrix([[self[i, j] for i in range(n)] for j in range(m)])

    def __repr__(self) -> str:
        return f"Matrix({self.rows})"
