def largest(values):
    """Return the largest number in a non-empty list."""
    best = values[0]
    for value in values:
        if value > best:
            best = value
    return best
