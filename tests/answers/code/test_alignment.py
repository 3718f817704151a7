"""Which lines of two texts are the same line (answers/code/alignment.py)."""

from __future__ import annotations

import random
from itertools import pairwise

from rune_lsp.answers.code.alignment import STRETCH, same_lines


def _valid(old: list[str], new: list[str], pairs: list[tuple[int, int]]) -> bool:
    increasing = all(a[0] < b[0] and a[1] < b[1] for a, b in pairwise(pairs))
    return increasing and all(old[i] == new[j] for i, j in pairs)


def test_lines_changed_in_place_pair_the_others_line_by_line() -> None:
    old = ["a", "x", "x", "b", "x"]
    new = ["a", "y", "x", "b", "x"]

    assert same_lines(old, new) == [(0, 0), (2, 2), (3, 3), (4, 4)]


def test_an_inserted_line_shifts_the_pairs_after_it() -> None:
    old = ["def f():", "    x = 1", "    return x"]
    new = ["def f():", "    x = 1", "    x += 1", "    return x"]

    assert same_lines(old, new) == [(0, 0), (1, 1), (2, 3)]


def test_unique_lines_out_of_order_keep_the_longest_run() -> None:
    old = ["a", "b", "c", "d"]
    new = ["d", "a", "b", "c"]

    assert same_lines(old, new) == [(0, 1), (1, 2), (2, 3)]


def test_a_long_stretch_of_alike_lines_of_other_lengths_is_left_unpaired() -> None:
    # Without anchors and with lengths that differ, only a short stretch is aligned by difflib:
    # a long one would cost quadratic time.
    old = ["x"] * (STRETCH + 1)
    new = ["x"] * (STRETCH + 2)

    assert same_lines(old, new) == []
    assert len(same_lines(old[:10], new[:11])) == 10


def test_every_pair_is_of_equal_lines_in_order() -> None:
    rng = random.Random(7)
    for _ in range(300):
        old = [rng.choice("abcde") for _ in range(rng.randrange(0, 30))]
        new = [rng.choice("abcde") for _ in range(rng.randrange(0, 30))]
        assert _valid(old, new, same_lines(old, new))
