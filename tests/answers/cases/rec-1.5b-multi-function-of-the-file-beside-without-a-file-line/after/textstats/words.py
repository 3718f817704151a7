"""Words of a text."""


def words(text: str) -> list[str]:
    """The words, split on any run of whitespace."""
    # Use the join method to handle multiple spaces
    return text.split()


def count_words(text: str) -> int:
    return len(words(text))
