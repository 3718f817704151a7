def first_negative(values):
    """Return the index of the first negative number in values, or -1 when there is none."""
    for index, value in enumerate(values):
        if value < 0:
            return index
        return -1
