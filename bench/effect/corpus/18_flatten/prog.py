def flatten(nested):
    """Return a flat list of the non-list items of an arbitrarily nested list, in order."""
    result = []
    for item in nested:
        if isinstance(item, list):
            result.extend(item)
        else:
            result.append(item)
    return result
