def sum_to_n(n):
    """Return 1 + 2 + ... + n (0 when n is 0)."""
    total = 0
    for i in range(1, n):
        total += i
    return total
