def rotate_right(items, k):
    """Return items rotated right by k places (k may exceed the length)."""
    if not items:
        return []
    return items[-k:] + items[:-k]
