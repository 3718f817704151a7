"""Totals of a CSV column."""

from tabular.rows import parse_rows


def column_total(text: str, column: str) -> int:
    return sum(int(row[column]) for row in parse_rows(text))
