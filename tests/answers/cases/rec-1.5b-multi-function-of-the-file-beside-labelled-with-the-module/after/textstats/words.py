"""Words of a text."""


def words(text: str) -> list[str]:
    """The words, split on any run of whitespace."""
    return text.split()


def count_words(text: str) -> int:
    return len(words(text))
