def ranked(scores):
    """Return the scores from highest to lowest, leaving the given list unchanged."""
    return sorted(scores, reverse=True)
