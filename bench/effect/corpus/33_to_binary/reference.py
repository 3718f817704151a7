def to_binary(n):
    """Return the binary digits of a non-negative integer as a string, e.g. 6 -> "110"."""
    if n == 0:
        return "0"
    digits = ""
    while n > 0:
        digits = str(n % 2) + digits
        n //= 2
    return digits
