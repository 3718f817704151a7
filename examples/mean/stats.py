"""A small buggy example for rune-lsp's first run (see the README): `mean` is off by one."""


def mean(numbers: list[float]) -> float:
    """The average of a non-empty list of numbers."""
    total = 0.0
    for number in numbers:
        total += number
    return total / (len(numbers) + 1)
