"""Small matrices as lists of rows."""


def shape(rows: list[list[float]]) -> tuple[int, int]:
    return len(rows), len(rows[0]) if rows else 0


def transpose(rows: list[list[float]]) -> list[list[float]]:
    """Rows become columns: a 2x3 matrix becomes 3x2."""
    height, width = shape(rows)
    return [[rows[c][r] for r in range(height)] for c in range(width)]


def scale(rows: list[list[float]], factor: float) -> list[list[float]]:
    return [[value * factor for value in row] for row in rows]
