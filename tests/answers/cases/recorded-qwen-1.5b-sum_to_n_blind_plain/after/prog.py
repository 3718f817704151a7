def sum_to_n(n):
    """Return 1 + 2 + ... + n (0 when n is 0)."""
    total = 0
    if n == 0:
        return 0
    for i in range(0, n):
        total += i
    return total
