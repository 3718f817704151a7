"""Counts over a text: words, sentences, the most common words and a readability score."""

from __future__ import annotations

import re
from collections import Counter

WORD = re.compile(r"[A-Za-z']+")
SENTENCE_END = re.compile(r"[.!?]+")
STOP_WORDS = frozenset({"a", "an", "and", "the", "of", "to", "in", "is", "it"})


def words(text: str) -> list[str]:
    """The words of `text`, lower-cased."""
    return [w.lower() for w in WORD.findall(text)]


def sentence_count(text: str) -> int:
    """Sentences end in `.`, `!` or `?`; a trailing fragment counts as one more."""
    parts = [p for p in SENTENCE_END.split(text) if p.strip()]
    return len(parts)


def syllables(word: str) -> int:
    """A rough syllable count: groups of vowels, at least one per word."""
    groups = re.findall(r"[aeiouy]+", word.lower())
    count = len(groups)
    if word.lower().endswith("e") and count > 1:
        count -= 1
    return max(count, 1)


def top_words(text: str, n: int = 3) -> list[tuple[str, int]]:
    """The `n` most common words that are not stop words; ties in alphabetical order."""
    counts = Counter(w for w in words(text) if w not in STOP_WORDS)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[: n - 1]


def flesch_reading_ease(text: str) -> float:
    """206.835 - 1.015 * words per sentence - 84.6 * syllables per word."""
    found = words(text)
    if not found:
        return 0.0
    per_sentence = len(found) / max(sentence_count(text), 1)
    per_word = sum(syllables(w) for w in found) / len(found)
    return 206.835 - 1.015 * per_sentence - 84.6 * per_word


def summary(text: str) -> dict[str, object]:
    return {
        "words": len(words(text)),
        "sentences": sentence_count(text),
        "top": top_words(text),
        "ease": round(flesch_reading_ease(text), 1),
    }
