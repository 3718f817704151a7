VOWELS = "aeiou"


def count_vowels(text):
    """Count the vowels in text, upper or lower case."""
    lowered = text.lower()
    return sum(1 for ch in text if ch in VOWELS)
