"""What `ast` tells the reader about a text (answers/code/python_source.py)."""

from __future__ import annotations

import pytest

from rune_lsp.answers.code.python_source import (
    Outline,
    class_header_parts,
    opens_definition,
    outline,
)


@pytest.mark.parametrize(
    ("line", "opens"),
    [
        ("def f():", True),
        ("    async def f():", True),
        ("class A(B):", True),
        ("\tclass A:", True),
        ("async with lock:", False),
        ("default = 1", False),
        ("@property", False),
    ],
)
def test_a_line_opens_a_definition_by_its_keyword(line: str, opens: bool) -> None:
    assert opens_definition(line) is opens


def test_a_class_headers_parts_are_its_decorators_bases_and_keywords() -> None:
    parts = class_header_parts(["@dataclass", "class Point(Base, metaclass=Meta):"])

    assert parts == frozenset({"Name:dataclass", "Name:Base", "keyword:metaclass=Meta"})
    assert class_header_parts(["def f():"]) is None


def _outline(text: str) -> Outline:
    found = outline(text.splitlines())
    assert found is not None
    return found


def test_each_definition_reads_the_module_names_it_does_not_bind() -> None:
    text = (
        "def clean(row):\n    return row\n\n\n"
        "def load(rows):\n    return [clean(r) for r in rows]\n"
    )

    assert _outline(text).reads == {"clean": frozenset(), "load": frozenset({"clean"})}


def test_a_name_a_definition_binds_itself_is_not_read_from_the_module() -> None:
    # A nested helper, a parameter and a local of that name are the function's own.
    nested = (
        "def load(rows):\n    def clean(row):\n        return row\n"
        "    return [clean(r) for r in rows]\n"
    )
    local = "def keep(clean):\n    total = clean\n    return total\n"

    assert _outline(f"{nested}\n\n{local}").reads == {"load": frozenset(), "keep": frozenset()}


def test_nested_assigned_is_every_name_a_definition_stores() -> None:
    # Locals, loop targets, a nested function's and a method's locals; not a module
    # constant, an attribute's base, a name only read, or a parameter.
    text = (
        "LIMIT = 3\n\n\n"
        "def cap(x, bound=LIMIT):\n    middle = x // 2\n    for step in range(middle):\n"
        "        pass\n    def inner():\n        deep = 1\n        return deep\n"
        "    return min(middle, bound)\n\n\n"
        "class Box:\n    size = 2\n\n    def grow(self):\n        self.size = total = 4\n"
        "        return total\n\n\n"
        "if LIMIT:\n    guarded = 1\n"
    )

    assert _outline(text).nested_assigned == frozenset({"middle", "step", "deep", "size", "total"})
    assert _outline("LIMIT = 3\nprint(LIMIT)\n").nested_assigned == frozenset()
