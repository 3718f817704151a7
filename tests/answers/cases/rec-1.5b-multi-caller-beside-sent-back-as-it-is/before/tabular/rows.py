"""Rows of a CSV text as dictionaries keyed by the header."""

import csv
import io


def parse_rows(text: str) -> list[dict[str, str]]:
    reader = csv.reader(io.StringIO(text))
    header = next(reader)
    rows = []
    for row in reader:
        if not row:
            continue
        rows.append({header[i]: row[i] for i in range(1, len(header) + 1)})
    return rows
