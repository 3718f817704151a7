def reverse_words(sentence):
    """Return the sentence with its words in reverse order, single spaces between them."""
    words = sentence.split()
    backwards = list(reversed(words))
    return " ".join(words)
