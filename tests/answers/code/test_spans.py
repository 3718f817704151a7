"""Overlapping replacements: where the widest already makes each change of the others (the same
fix shown twice, a fix then "I changed ```old``` into ```new```"), they are that one edit;
others are refused by the caller."""

from __future__ import annotations

from rune_lsp.answers.code.spans import FileText, Replace, agreeing, indent_steps

FILE = FileText.of("a = 1\nb = 2\nc = 3\nd = 4\n")


def test_a_whole_file_and_a_line_it_also_changes_are_the_whole_file() -> None:
    whole = Replace(0, 3, ("a = 1", "b = 20", "c = 3", "d = 4"))
    line = Replace(1, 1, ("b = 20",))

    assert agreeing([line, whole], FILE) == [whole]
    assert agreeing([whole, line], FILE) == [whole]


def test_the_wide_one_may_change_more_than_the_narrow_ones_show() -> None:
    whole = Replace(0, 3, ("a = 1", "b = 20", "c = 3", "d = 40"))
    first, second = Replace(1, 1, ("b = 20",)), Replace(2, 3, ("c = 3", "d = 40"))

    assert agreeing([first, whole, second], FILE) == [whole]
    # A change the wide one makes only as part of a larger change is not told apart: refused.
    merged = Replace(0, 3, ("a = 10", "b = 20", "c = 3", "d = 4"))
    assert agreeing([first, merged], FILE) is None


def test_an_insert_the_wide_one_makes_too_agrees() -> None:
    whole = Replace(0, 3, ("a = 1", "import re", "b = 2", "c = 3", "d = 4"))
    insert = Replace(1, 0, ("import re",))  # before line 1

    assert agreeing([insert, whole], FILE) == [whole]


def test_overlapping_changes_that_differ_are_not_agreeing() -> None:
    whole = Replace(0, 3, ("a = 1", "b = 21", "c = 3", "d = 4"))
    line = Replace(1, 1, ("b = 20",))
    crossing = (Replace(0, 1, ("a = 1", "b = 20")), Replace(1, 2, ("b = 20", "c = 3")))

    assert agreeing([line, whole], FILE) is None
    assert agreeing(list(crossing), FILE) is None  # neither spans the other


def test_separate_changes_pass_through_in_file_order() -> None:
    first, second = Replace(0, 0, ("a = 0",)), Replace(2, 2, ("c = 0",))

    assert agreeing([second, first], FILE) == [first, second]


def test_lines_a_replacement_repeats_keep_their_trailing_spaces_and_endings() -> None:
    # A block is read without trailing spaces; inside a triple-quoted string they are its value.
    file = FileText.of('s = 1\r\nt = """a  \r\nb  \r\n"""\r\ny = 1')
    spliced = file.spliced([Replace(0, 4, ("s = 2", 't = """a', "b", '"""', "y = 2"))])

    assert spliced == 's = 2\r\nt = """a  \r\nb  \r\n"""\r\ny = 2'


def test_indent_steps_are_each_lines_depth_against_the_line_before() -> None:
    assert indent_steps(["def f():", "    if x:", "", "        y", "    z"]) == (0, 4, 0, 4, -4)
