def dedupe(items):
    """Return items without repeats, keeping the first occurrence of each, in order."""
    return list(dict.fromkeys(items))
