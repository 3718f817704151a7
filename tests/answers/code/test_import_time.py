"""Names a module reads on import before the line that binds them (answers/code/import_time.py)."""

from __future__ import annotations

import ast

import pytest

from rune_lsp.answers.code.import_time import read_before_bound


def _early(source: str) -> dict[str, tuple[int, int]]:
    return read_before_bound(ast.parse(source))


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ("A = B + 1\nB = 2\n", "B"),  # a module statement
        ("def f(x=LIMIT):\n    return x\nLIMIT = 1\n", "LIMIT"),  # a default value
        ("@register\ndef f():\n    pass\ndef register(f):\n    return f\n", "register"),
        ("class A(Base):\n    pass\nclass Base:\n    pass\n", "Base"),  # a base class
        ("class A:\n    size = SIZE\nSIZE = 3\n", "SIZE"),  # a class body runs on import
        ("if DEBUG:\n    pass\nDEBUG = False\n", "DEBUG"),  # a compound statement's test
        ("ITEMS = [x for x in SOURCE]\nSOURCE = [1]\n", "SOURCE"),
    ],
)
def test_a_name_read_on_import_above_its_binding_is_found(source: str, name: str) -> None:
    assert name in _early(source)


@pytest.mark.parametrize(
    "source",
    [
        "def f():\n    return LIMIT\nLIMIT = 1\n",  # a function body runs when called
        "f = lambda: LIMIT\nLIMIT = 1\n",  # and so does a lambda's
        "ITEMS = [x for x in range(3)]\nx = 1\n",  # a comprehension's own variable
        "class A:\n    X = 1\n    Y = X + 1\nX = 2\n",  # a class's own attribute
        "x: Later = 1\nclass Later:\n    pass\n",  # an annotation may never run
        "try:\n    complex\nexcept NameError:\n    complex = float\n",  # a builtin
        "print(undefined_anywhere)\n",  # never bound here: a star import's, say
        "import os\nPATH = os.sep\n",
    ],
)
def test_a_read_that_runs_later_or_is_not_the_modules_is_not_found(source: str) -> None:
    assert _early(source) == {}


def test_the_first_read_and_the_first_binding_are_given() -> None:
    assert _early("A = B\nC = B\nB = 1\nB = 2\n") == {"B": (1, 3)}


def test_what_runs_only_for_a_type_checker_is_not_read_on_import() -> None:
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    X = Later\n"
        "class Later:\n    pass\n"
    )

    assert _early(source) == {}
    assert "Later" in _early(source.replace("if TYPE_CHECKING:", "if True:"))


def test_an_expression_nested_a_thousand_deep_is_walked_without_recursion() -> None:
    source = "X = " + " + ".join(["Y"] * 1_500) + "\nY = 1\n"

    assert _early(source) == {"Y": (1, 2)}
