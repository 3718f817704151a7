def gcd(a, b):
    """Return the greatest common divisor of two non-negative integers, not both zero."""
    while b:
        a, b = b, a % b
    return a
