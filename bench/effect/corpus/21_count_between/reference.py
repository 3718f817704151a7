def count_between(values, low, high):
    """Count the values v with low <= v <= high (both bounds included)."""
    return sum(1 for v in values if low <= v <= high)
