"""attribute_names: the methods a test reaches by name, operator, builtin or statement."""

from __future__ import annotations

import ast

import pytest

from rune_lsp.runner.attributes import attribute_names


def _names(source: str) -> set[str]:
    return attribute_names(ast.parse(source))


def test_attributes_are_named_as_written() -> None:
    assert _names("cart.add(item).total") == {"add", "total"}


@pytest.mark.parametrize(
    ("source", "method"),
    [
        ('cache["a"] = 1', "__setitem__"),
        ('cache["a"]', "__getitem__"),
        ('del cache["a"]', "__delitem__"),
        ("'a' in cache", "__contains__"),
        ("a < b", "__lt__"),
        ("total += price", "__add__"),
        ("len(cache)", "__len__"),
        ("copy.deepcopy(cache)", "__deepcopy__"),
        ("for item in cart: pass", "__iter__"),
        ("[x for x in cart]", "__iter__"),
        ("with lock: pass", "__enter__"),
    ],
)
def test_operators_builtins_and_statements_name_their_special_method(
    source: str, method: str
) -> None:
    assert method in _names(source)


def test_an_operator_without_a_listed_method_names_nothing() -> None:
    assert _names("a ** b") == set()
