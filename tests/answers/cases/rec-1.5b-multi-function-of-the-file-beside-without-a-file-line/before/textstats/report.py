"""A one-line summary of a text."""

from textstats.words import count_words, words


def longest(text: str) -> str:
    return max(words(text), key=len, default="")


def summary(text: str) -> str:
    return f"{count_words(text)} words, longest: {longest(text)}"
