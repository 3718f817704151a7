"""Overlapping replacements: where the widest already makes each change of the others (the same
fix shown twice, a fix then "I changed ```old``` into ```new```"), they are that one edit;
others are refused by the caller."""

from __future__ import annotations

import random

from rune_lsp.answers.code.spans import (
    FileText,
    Replace,
    agreeing,
    indent_steps,
    minimal_edit,
)
from rune_lsp.linediff import common_ends

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


def _widened_line_by_line(before: str, after: str) -> tuple[str, str]:
    """minimal_edit's meaning, the slow way: one line more on each side until unique."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    head, tail = common_ends(old, new)
    for more in range(len(old) + 1):
        lo, hi = max(0, head - more), min(len(old), len(old) - tail + more)
        old_text = "".join(old[lo:hi])
        new_text = "".join(new[lo : hi + len(new) - len(old)])
        if old_text.endswith("\n") and new_text.endswith("\n"):
            old_text, new_text = old_text[:-1], new_text[:-1]
        whole = lo == 0 and hi == len(old)
        first = before.find(old_text)  # overlapping occurrences count: not str.count
        if whole or (old_text and before.find(old_text, first + 1) == -1):
            return old_text, new_text
    raise AssertionError("unreachable")


def test_a_change_in_a_unique_place_is_its_lines_alone() -> None:
    before = "a = 1\nb = 2\nc = 3\n"

    assert minimal_edit(before, "a = 1\nb = 20\nc = 3\n") == ("b = 2", "b = 20")


def test_a_change_amid_alike_lines_is_widened_to_the_first_unique_text() -> None:
    before = "top\n" + "x = 1\n" * 50 + "bottom\n"
    after = before.replace("x = 1\n", "x = 2\n", 1)

    # The first alike line changed: a line more on each side takes in `top`, which is unique.
    assert minimal_edit(before, after) == ("top\nx = 1\nx = 1", "top\nx = 2\nx = 1")


def test_minimal_edit_widens_as_one_line_at_a_time_would() -> None:
    rng = random.Random(3)
    for _ in range(400):
        old = [rng.choice(["a\n", "b\n", "a\n", "c\n"]) for _ in range(rng.randrange(1, 40))]
        new = list(old)
        at = rng.randrange(len(new))
        new[at : at + rng.randrange(0, 3)] = [rng.choice(["a\n", "d\n", "e\n"])]
        before, after = "".join(old), "".join(new)
        if before != after:
            assert minimal_edit(before, after) == _widened_line_by_line(before, after)


def test_a_replacements_growth_is_the_lines_it_adds() -> None:
    assert Replace(1, 1, ("b = 2", "b += 1")).growth == 1
    assert Replace(1, 2, ()).growth == -2
    assert Replace(2, 1, ("# inserted",)).growth == 1  # an insertion before line 2
    assert Replace(0, 3, ("a", "b", "c", "d")).growth == 0
