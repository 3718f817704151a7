"""Render a plain-text sales report.

The layout is fixed by the people who read it on paper:

    title line, underlined
    one line per region: name, then the amount right-aligned
    a total line
"""

from __future__ import annotations

from collections.abc import Iterable

WIDTH = 32

HELP = """\
usage: report [REGION=AMOUNT ...]
Amounts are whole currency units.
"""


def parse_pairs(args: Iterable[str]) -> dict[str, int]:
    """`["north=10", "south=5"]` as `{"north": 10, "south": 5}`."""
    result: dict[str, int] = {}
    for arg in args:
        name, _, amount = arg.partition("=")
        if not name or not amount.isdigit():
            raise ValueError(f"not REGION=AMOUNT: {arg!r}\n{HELP}")
        result[name] = result.get(name, 0) + int(amount)
    return result


def line(label: str, amount: int) -> str:
    """A label and an amount right-aligned to WIDTH columns."""
    number = f"{amount:,}"
    gap = WIDTH - len(label) - len(number)
    return label + " " * max(gap, 1) + number


def render(title: str, sales: dict[str, int]) -> str:
    """The report, regions sorted by amount, largest first.

    Example:

    >>> print(render("Q1", {"north": 1200, "south": 300}))
    Q1
    ==
    north                      1,200
    south                        300
    total                      1,500
    """
    header = f"""{title}
{"=" * len(title)}
"""
    rows = [line(name, amount) for name, amount in sorted(sales.items(), key=lambda kv: kv[1])]
    total = line("total", sum(sales.values()))
    return header + "\n".join([*rows, total])


def main(argv: list[str]) -> str:
    if not argv:
        return HELP
    return render("Sales", parse_pairs(argv))
