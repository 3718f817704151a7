"""A tokenizer for a tiny arithmetic language: numbers, names, operators, parentheses."""

from __future__ import annotations

from dataclasses import dataclass

OPERATORS = frozenset("+-*/%^")
PUNCTUATION = frozenset("(),")


@dataclass(frozen=True)
class Token:
    kind: str  # "number", "name", "op", "punct"
    text: str
    column: int


class TokenError(ValueError):
    def __init__(self, message: str, column: int) -> None:
        super().__init__(f"{message} at column {column}")
        self.column = column


def tokenize(source: str) -> list[Token]:
    """The tokens of `source`, in order; spaces separate tokens and are dropped."""
    tokens: list[Token] = []
    position = 0

    def take_while(predicate) -> str:
        nonlocal position
        start = position
        while position < len(source) and predicate(source[position]):
            position += 1
        return source[start:position]

    def read_number() -> Token:
        start = position
        text = take_while(lambda ch: ch.isdigit())
        if position < len(source) and source[position] == ".":
            fraction = take_while(lambda ch: ch.isdigit() or ch == ".")
            if fraction.count(".") > 1:
                raise TokenError("malformed number", start)
            text += fraction
        return Token("number", text, start)

    def read_name() -> Token:
        start = position
        return Token("name", take_while(lambda ch: ch.isalpha() or ch == "_"), start)

    while position < len(source):
        char = source[position]
        if char.isspace():
            position += 1
        elif char.isdigit():
            tokens.append(read_number())
        elif char.isalpha() or char == "_":
            tokens.append(read_name())
        elif char in OPERATORS:
            tokens.append(Token("op", char, position))
            position += 1
        elif char in PUNCTUATION:
            tokens.append(Token("punct", char, position))
            position += 1
        else:
            raise TokenError(f"unexpected {char!r}", position)
    return tokens


def kinds(source: str) -> list[str]:
    """Just the kinds, for quick checks."""
    return [token.kind for token in tokenize(source)]
