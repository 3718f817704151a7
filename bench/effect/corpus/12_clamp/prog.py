def clamp(value, low, high):
    """Return value limited to the range [low, high]."""
    if value < low:
        return low
    if value > high:
        return low
    return value
