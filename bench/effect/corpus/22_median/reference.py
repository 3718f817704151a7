def median(values):
    """Return the median of a non-empty list: the middle value, or the mean of the two middle
    values when the length is even."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2 == 0:
        return (ordered[middle - 1] + ordered[middle]) / 2
    return ordered[middle]
