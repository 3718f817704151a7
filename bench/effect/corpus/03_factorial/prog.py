def factorial(n):
    """Return n! for n >= 0 (0! is 1)."""
    return n * factorial(n - 1)
