import pytest
from textstats import flesch_reading_ease, sentence_count, summary, top_words

TEXT = "The cat sat. The cat ran! A dog sat and the dog ran and ran"


def test_top_words() -> None:
    assert top_words(TEXT) == [("ran", 3), ("cat", 2), ("dog", 2)]
    assert top_words(TEXT, 1) == [("ran", 3)]


def test_sentences_and_summary() -> None:
    assert sentence_count(TEXT) == 3
    assert summary(TEXT)["words"] == 15


def test_ease() -> None:
    assert flesch_reading_ease("") == 0.0
    assert flesch_reading_ease("The cat sat.") == pytest.approx(119.19, abs=0.01)
