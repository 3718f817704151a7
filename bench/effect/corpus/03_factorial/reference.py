def factorial(n):
    """Return n! for n >= 0 (0! is 1)."""
    if n <= 1:
        return 1
    return n * factorial(n - 1)
