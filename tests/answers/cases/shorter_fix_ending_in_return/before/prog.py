def ranked(scores):
    """Return the scores from highest to lowest, leaving the given list unchanged."""
    scores.sort(reverse=True)
    return scores
