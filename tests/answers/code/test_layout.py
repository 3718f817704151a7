"""layout_only: the same syntax tree, compared on the innermost definition holding the change,
else on the top-level statements it touches."""

from __future__ import annotations

import pytest

from rune_lsp.answers.code import layout
from rune_lsp.answers.code.layout import layout_only
from rune_lsp.answers.code.spans import FileText, Replace

SOURCE = '''"""Shapes."""

LIMIT = 3


class Shapes:
    def area(self, r):
        return 3 * r * r

    def help(self):
        return """
# not a comment: part of the text
done"""


def add(a, b):
    return a - b
'''


def made(lo: int, hi: int, *lines: str) -> tuple[FileText, list[Replace], FileText]:
    file = FileText.of(SOURCE)
    replaces = [Replace(lo, hi, lines)]
    return file, replaces, _result(file, replaces)


def _result(file: FileText, replaces: list[Replace]) -> FileText:
    return FileText.of(file.spliced(replaces))


def test_a_comment_and_a_blank_line_in_a_method_are_layout_only() -> None:
    assert layout_only(*made(7, 7, "        # the area", "", "        return 3 * r * r"))


def test_a_changed_expression_is_not_layout_only() -> None:
    assert not layout_only(*made(16, 16, "    return a + b"))


def test_a_line_inside_a_string_that_looks_like_a_comment_is_text() -> None:
    assert not layout_only(*made(11, 11))  # the line taken out of the returned text


def test_a_module_level_comment_is_layout_only_and_a_changed_constant_is_not() -> None:
    assert layout_only(*made(2, 2, "# at most", "LIMIT = 3"))
    assert not layout_only(*made(2, 2, "LIMIT = 4"))


def test_code_put_before_a_definition_is_not_layout_only() -> None:
    assert not layout_only(*made(15, 14, "@staticmethod"))
    assert layout_only(*made(15, 14, "# adds"))


def test_a_reindented_definition_is_not_layout_only() -> None:
    assert not layout_only(*made(15, 16, "  def add(a, b):", "      return a - b"))


def test_only_the_innermost_definition_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[str, str]] = []

    def same_tree(before: str, after: str) -> bool:
        compared.append((before, after))
        return True

    monkeypatch.setattr(layout, "_same_tree", same_tree)
    assert layout_only(*made(7, 7, "        return 3 * r * r  # the area"))
    assert compared == [
        (
            "if 1:\n    def area(self, r):\n        return 3 * r * r",
            "if 1:\n    def area(self, r):\n        return 3 * r * r  # the area",
        ),
    ]


def test_a_file_that_does_not_parse_is_never_layout_only() -> None:
    file = FileText.of("def add(a, b)\n    return a - b\n")
    replaces = [Replace(1, 1, ("    return a - b  # still",))]
    assert not layout_only(file, replaces, _result(file, replaces))


def test_a_blank_line_of_a_string_keeps_its_spaces() -> None:
    text = 'class A:\n    def f(self):\n        x = """a\n    \n    b"""\n        return x\n'
    file = FileText.of(text)
    replaces = [Replace(3, 3, ("  x",))]  # the string's "    " line changed: another string
    assert not layout_only(file, replaces, _result(file, replaces))
    comment = [Replace(5, 5, ("        return x  # the text",))]
    assert layout_only(file, comment, _result(file, comment))


def test_a_coding_cookie_added_is_not_layout_only() -> None:
    file = FileText.of('"""Shapes."""\nLIMIT = "\u00e9"\n')
    cookie = [Replace(0, -1, ("# -*- coding: latin-1 -*-",))]
    assert not layout_only(file, cookie, _result(file, cookie))


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_a_cookie_file_is_judged_alike_whatever_its_line_endings(ending: str) -> None:
    # The first two lines are compared as the file's lines are split (LSP's line breaks): a
    # file of `\r` endings was once read as one first line, so it was never layout only.
    file = FileText.of(ending.join(("# -*- coding: utf-8 -*-", "X = 1", "Y = 2", "")))
    comment = [Replace(2, 2, ("Y = 2  # two",))]
    assert layout_only(file, comment, _result(file, comment))
    changed = [Replace(0, 0, ("# -*- coding: latin-1 -*-",))]
    assert not layout_only(file, changed, _result(file, changed))


MODULE = '''"""Settings."""

import os

LIMIT = 3
NAMES = [
    "a",
    "b",
]


@cache
def load(path):
    return open(path).read()


if os.name == "nt":
    SEP = "\\\\"
else:
    SEP = "/"
TEXT = """
# not a comment
"""
x = 1; y = 2
'''


def test_module_level_changes_are_compared_on_the_statements_they_touch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compared: list[tuple[str, str]] = []
    same_tree = layout._same_tree

    def recorded(before: str, after: str) -> bool:
        compared.append((before, after))
        return same_tree(before, after)

    monkeypatch.setattr(layout, "_same_tree", recorded)
    file = FileText.of(MODULE)
    # A comment on the first statement and one inside the list, as the 400 numbered lines
    # of bench/reading.py change their first and last.
    replaces = [
        Replace(0, 0, ('"""Settings."""  # of the app',)),
        Replace(7, 7, ('    "b",  # b',)),
    ]
    assert layout_only(file, replaces, _result(file, replaces))
    assert compared == [
        ('"""Settings."""', '"""Settings."""  # of the app'),
        ('NAMES = [\n    "a",\n    "b",\n]', 'NAMES = [\n    "a",\n    "b",  # b\n]'),
    ]


@pytest.mark.parametrize(
    ("text", "replaces"),
    [
        # Statements sharing a line: the stretch starts at the first of them.
        ("a = 1 + \\\n2 if c else 3; b = 4\n", [Replace(1, 1, ("(2 if c else 3); b = 4",))]),
        ('a = """\nx\n"""; b = """ # R\n""" # """\n', [Replace(2, 2, ('"""; b = """ # S',))]),
        # A backslash continues the line below it, blank or a comment.
        ("x = 1 \\\n\ny = 2\n", [Replace(1, 1, ())]),
        ("x = 1 \\\n# c\ny = 2\n", [Replace(1, 2, ("y = 2",))]),
        ("handler = setup \\\n\n(DEFAULTS)\n", [Replace(1, 1, ())]),
        # What is compared is what is written: splicing keeps a line's trailing spaces.
        ('# x   \ns = """\n# x\n"""\n', [Replace(0, 3, ("s = (", '"""', "# x", '""")'))]),
        (
            'def f():\n# x   \n    s = """\n# x\n"""\n    return s\n',
            [Replace(1, 4, ("    s = (", '"""', "# x", '""")'))],
        ),
        (
            'HELP = """\nusage:   \n  x\n"""\nLIMIT = 3\n',
            [Replace(0, 4, ('HELP = """', "usage:", "  x", '"""', "LIMIT = 3  # cap"))],
        ),
    ],
    ids=[
        "semicolon",
        "semicolon after a string",
        "backslash, blank",
        "backslash, comment",
        "backslash joins a call",
        "trailing spaces",
        "trailing spaces in a definition",
        "trailing spaces kept",
    ],
)
def test_review_cases_decide_as_the_whole_file_does(text: str, replaces: list[Replace]) -> None:
    # Found by a review's fuzzing (7 December 2026): each said True where the whole file's
    # trees differ, or False where they agree.
    file = FileText.of(text)
    assert layout_only(file, replaces, _result(file, replaces)) == _whole_file_same(file, replaces)


def _whole_file_same(file: FileText, replaces: list[Replace]) -> bool:
    return layout._same_tree(file.text, file.spliced(replaces))


#: Lines a model's answer puts at module level: layout, and code.
_PUT = ["", "# note", "    # indented note", "LIMIT = 4", "@cache", "else:", "]", '"""', "z = 0"]


def test_stretches_of_statements_decide_as_the_whole_file_does() -> None:
    # Every replacement of one or two lines by one of `_PUT`, and pairs of a layout line put
    # in with another such edit: the stretch-wise answer is the whole file's.
    file = FileText.of(MODULE)
    count = len(file.lines)
    singles = [
        Replace(lo, hi, (put,))
        for lo in range(count)
        for hi in (lo - 1, lo, min(lo + 1, count - 1))
        for put in _PUT
    ]
    for replace in singles:
        assert layout_only(file, [replace], _result(file, [replace])) == _whole_file_same(
            file, [replace]
        ), replace
    first = [r for r in singles if r.hi == r.lo - 1 and r.lines in (("",), ("# note",))]
    for one in first:
        for other in singles[::5]:
            if other.lo > one.lo + 1 and not one.overlaps(other):
                pair = [one, other]
                assert layout_only(file, pair, _result(file, pair)) == _whole_file_same(
                    file, pair
                ), pair
