def word_counts(text):
    """Return a dict mapping each whitespace-separated word to how often it occurs."""
    counts = {}
    for word in text.split():
        counts[word] = counts.get(word, 0)
    return counts
