import re


def split_words(text):
    return re.split(r"\s+", text)


def shout(text):
    return text.upper()


LIMIT = 10
