def power(base, exponent):
    """Return base ** exponent for an integer exponent >= 0, by repeated multiplication."""
    if exponent == 0:
        return 0
    return base * power(base, exponent - 1)
