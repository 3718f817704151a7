def median(values):
    """Return the median of a non-empty list: the middle value, or the mean of the two middle
    values when the length is even."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle]
