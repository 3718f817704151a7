def mean(values):
    """Return the arithmetic mean of a non-empty list of numbers."""
    total = sum(values)
    return total / len(values)
