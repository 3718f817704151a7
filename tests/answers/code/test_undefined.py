"""Names a file reads and binds nowhere (answers/code/undefined.py)."""

from __future__ import annotations

import ast

import pytest

from rune_lsp.answers.code.undefined import left_out_line, pruned, undefined_names


def _unbound(source: str, path: str = "prog.py") -> dict[str, str]:
    """As the reader asks: what symtable finds, then what the syntax tree takes out."""
    found = undefined_names(source, path)
    return pruned(ast.parse(source), found) if found else {}


def test_a_name_a_function_reads_and_nothing_binds_is_found_with_its_reader() -> None:
    source = "def median(values):\n    ordered = sorted(values)\n    return ordered[middle]\n"

    assert _unbound(source, "prog.py") == {"middle": "median"}


def test_the_reader_is_named_by_its_qualified_name_and_the_modules_own_by_none() -> None:
    assert undefined_names("print(missing)\n", "prog.py") == {"missing": ""}
    nested = "class Cart:\n    def total(self):\n        return [x for x in missing]\n"
    assert _unbound(nested, "prog.py") == {"missing": "Cart.total"}


@pytest.mark.parametrize(
    "source",
    [
        "import os\ndef f():\n    return os.sep\n",  # imported
        "def f():\n    return LIMIT\nLIMIT = 1\n",  # a module constant, below: fine at call
        "try:\n    import json\nexcept ImportError:\n    json = None\n",
        "def init():\n    global CACHE\n    CACHE = {}\ndef use():\n    return CACHE\n",
        "def f():\n    return __file__, __name__, len([])\n",  # module attributes, builtins
        "def outer():\n    x = 1\n    def inner():\n        return x\n    return inner\n",
        "class A:\n    def m(self):\n        return super().m()\n",  # the implicit __class__
        "from os.path import *\ndef f():\n    return join('a', 'b')\n",  # a star import
        "globals().update(A=1)\ndef f():\n    return A\n",  # names written into globals()
        "from tkinter import*\ndef f():\n    return Label\n",  # a star import without a space
        "import os; from os.path import *\ndef f():\n    return join\n",
        "exec(open('v.py').read())\nAUTHOR = __author__\n",
        "import enum\n@enum.global_enum\nclass F(enum.Flag):\n    A = 1\ndef f():\n    return A\n",
        "class Plugin:\n    label = __qualname__ + __module__\n",
        "def f(:\n",  # no Python: nothing to say
        "def f():\n    total: Decimal = 0\n    return total\n",  # never evaluated (PEP 526)
        "from __future__ import annotations\ndef f(x: Decimal) -> Decimal:\n    return x\n",
    ],
)
def test_a_name_bound_somewhere_or_unknowable_is_not_found(source: str) -> None:
    assert _unbound(source, "prog.py") == {}


def test_a_method_reading_a_class_attribute_by_its_bare_name_is_found() -> None:
    source = "class K:\n    size = 1\n    def m(self):\n        return size\n"

    assert _unbound(source, "prog.py") == {"size": "K.m"}


def test_an_annotation_that_runs_is_read() -> None:
    # A class attribute's annotation and a signature's (without the __future__ import) run
    # on import; a local annotation whose name is also called runs where it is called.
    assert _unbound("class A:\n    x: Decimal = 0\n", "m.py") == {"Decimal": "A"}
    assert undefined_names("def f(x: Decimal):\n    return x\n", "m.py") == {"Decimal": ""}
    in_function = "def f():\n    class A:\n        x: Decimal = 0\n    return A\n"
    assert _unbound(in_function, "m.py") == {"Decimal": "f.A"}
    local = "def f():\n    total: Decimal = Decimal(0)\n    return total\n"
    assert _unbound(local, "m.py") == {"Decimal": "f"}


def test_the_line_that_binds_the_name_now_is_quoted() -> None:
    source = "def median(values):\n    middle = len(values) // 2\n    return values[middle]\n"
    module = ast.parse(source)

    assert left_out_line(module, source.splitlines(), "median", "middle", "") == (
        "middle = len(values) // 2"
    )
    assert left_out_line(module, source.splitlines(), "median", "other", "") is None
    assert left_out_line(module, source.splitlines(), "mean", "middle", "") is None
    # A line the result still has is no line left out.
    assert left_out_line(module, source.splitlines(), "median", "middle", source) is None


def test_a_line_of_another_definition_of_the_same_name_is_not_quoted() -> None:
    source = (
        "class A:\n    def __init__(self, items):\n        total = sum(items)\n"
        "class B:\n    def __init__(self, items):\n        self.items = items\n"
        "def outer(xs):\n    def norm():\n        scale = max(xs)\n        return scale\n"
        "    return norm\n"
    )
    module, lines = ast.parse(source), source.splitlines()

    assert left_out_line(module, lines, "A.__init__", "total", "") == "total = sum(items)"
    assert left_out_line(module, lines, "B.__init__", "total", "") is None
    assert left_out_line(module, lines, "outer", "scale", "") is None  # its nested `norm`'s
    assert left_out_line(module, lines, "outer.norm", "scale", "") == "scale = max(xs)"
