import re


def split_words(text):
    return _WORDS.findall(text.lower())


def shout(text):
    return text.upper()


LIMIT = 10


_WORDS = re.compile(r"[a-z]{1,%d}" % LIMIT)
