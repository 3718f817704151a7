import pytest
from tokens import TokenError, kinds, tokenize


def test_numbers_and_names() -> None:
    assert [t.text for t in tokenize("x1 + 3.25 * y")] == ["x1", "+", "3.25", "*", "y"]


def test_parentheses_and_commas() -> None:
    assert kinds("max(a, 2)") == ["name", "punct", "name", "punct", "number", "punct"]
    assert [t.column for t in tokenize("(1)")] == [0, 1, 2]


def test_errors() -> None:
    with pytest.raises(TokenError):
        tokenize("1.2.3")
    with pytest.raises(TokenError):
        tokenize("a $ b")
