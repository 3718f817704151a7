def is_palindrome(text):
    """Whether text reads the same backwards, ignoring case and non-letters."""
    cleaned = "".join(ch.lower() for ch in text if ch.isalpha())
    return cleaned == cleaned[:-1]
