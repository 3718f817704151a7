from textkit.slug import slugify


def test_plain_words():
    assert slugify("hello world") == "hello-world"


def test_capitals_are_kept_as_letters():
    assert slugify("Hello, World!") == "hello-world"


def test_long_titles_are_cut():
    assert slugify("a" * 50) == "a" * 40
