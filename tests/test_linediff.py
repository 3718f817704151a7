"""The one line alignment (rune_lsp/linediff.py): the review's hunks, the reader's pairs."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from rune_lsp import linediff
from rune_lsp.linediff import (
    Block,
    _longest_increasing,
    _matcher_cost,
    common_ends,
    matching_blocks,
    same_lines,
)


def assert_valid(a: list[str], b: list[str], blocks: list[Block]) -> None:
    i_end = j_end = 0
    for i, j, size in blocks:
        assert size > 0
        assert i >= i_end and j >= j_end
        assert a[i : i + size] == b[j : j + size]
        # Adjacent blocks are merged.
        assert not (i == i_end and j == j_end and (i, j) != (0, 0))
        i_end, j_end = i + size, j + size


def test_small_inputs_match_like_sequence_matcher() -> None:
    a = ["a", "b", "c", "d"]
    b = ["a", "x", "c", "d"]
    assert matching_blocks(a, b) == [(0, 0, 1), (2, 2, 2)]


def test_empty_sides() -> None:
    assert matching_blocks([], ["a"]) == []
    assert matching_blocks(["a"], []) == []
    assert matching_blocks(["a"], ["a"]) == [(0, 0, 1)]


def test_big_regions_are_cut_at_unique_lines() -> None:
    # 1,500 x 1,500 lines is beyond SequenceMatcher's budget: patience anchors split it.
    a = [f"line {k}\n" if k % 3 else "}\n" for k in range(1500)]
    b = list(a)
    for k in range(10, 1500, 50):
        b[k] = f"changed {k}\n"
    blocks = matching_blocks(a, b)
    assert_valid(a, b, blocks)
    assert sum(size for _, _, size in blocks) == 1500 - len(range(10, 1500, 50))


def test_moved_unique_lines_keep_the_longest_ordered_run() -> None:
    a = [f"line {k}\n" for k in range(1200)]
    b = a[600:] + a[:600]  # the two halves swapped
    blocks = matching_blocks(a, b)
    assert_valid(a, b, blocks)
    assert max(size for _, _, size in blocks) == 600


def test_random_big_inputs_give_valid_blocks() -> None:
    rng = random.Random(11)
    vocabulary = [f"token {k}\n" for k in range(40)] + ["\n", "}\n"] * 10
    for _ in range(5):
        a = [rng.choice(vocabulary) for _ in range(700)] + [f"u{k}\n" for k in range(100)]
        b = list(a)
        for _ in range(20):
            k = rng.randrange(len(b))
            b[k : k + rng.randint(0, 5)] = [
                rng.choice(vocabulary) for _ in range(rng.randint(0, 5))
            ]
        assert_valid(a, b, matching_blocks(a, b))


def test_longest_increasing_subsequence() -> None:
    values = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]
    chain = _longest_increasing(values)
    picked = [values[k] for k in chain]
    assert len(picked) == 4  # e.g. 1 4 5 9 / 1 4 5 6 / 1 2 3 5
    assert picked == sorted(set(picked))
    assert chain == sorted(chain)
    assert _longest_increasing([]) == []


def _valid_pairs(old: list[str], new: list[str], pairs: list[tuple[int, int]]) -> bool:
    increasing = all(a[0] < b[0] and a[1] < b[1] for a, b in pairwise(pairs))
    return increasing and all(old[i] == new[j] for i, j in pairs)


def test_same_lines_pairs_lines_changed_in_place() -> None:
    old = ["a", "x", "x", "b", "x"]
    new = ["a", "y", "x", "b", "x"]

    assert same_lines(old, new) == [(0, 0), (2, 2), (3, 3), (4, 4)]


def test_same_lines_shifts_the_pairs_after_an_inserted_line() -> None:
    old = ["def f():", "    x = 1", "    return x"]
    new = ["def f():", "    x = 1", "    x += 1", "    return x"]

    assert same_lines(old, new) == [(0, 0), (1, 1), (2, 3)]


def test_same_lines_keeps_the_longest_run_of_lines_out_of_order() -> None:
    assert same_lines(["a", "b", "c", "d"], ["d", "a", "b", "c"]) == [(0, 1), (1, 2), (2, 3)]


def test_same_lines_gives_valid_pairs_on_random_small_texts() -> None:
    rng = random.Random(7)
    for _ in range(300):
        old = [rng.choice("abcde") for _ in range(rng.randrange(0, 30))]
        new = [rng.choice("abcde") for _ in range(rng.randrange(0, 30))]
        assert _valid_pairs(old, new, same_lines(old, new))


def _alike(rows: int, every: int) -> tuple[list[str], list[str]]:
    """Rows of three alike lines, and the same with every `every`-th row changed: a region
    without unique lines, where SequenceMatcher is quadratic."""
    old = [f"x = {k % 3}" for k in range(rows)]
    return old, [line if k % every else line + "  # changed" for k, line in enumerate(old)]


def test_alike_lines_cost_more_than_distinct_ones() -> None:
    old, new = _alike(500, 2)
    distinct = [f"line {k}" for k in range(500)]

    assert _matcher_cost(old, new) > linediff.MATCHER_BUDGET
    assert _matcher_cost(distinct, distinct) < linediff.MATCHER_BUDGET


@pytest.mark.parametrize(
    ("a", "b", "ends"),
    [
        ("abc", "abc", (3, 0)),
        ("abxc", "abc", (2, 1)),
        ("aa", "aaa", (2, 0)),  # a line is counted once, at the head
        ("xa", "ya", (0, 1)),
        ("", "abc", (0, 0)),
    ],
)
def test_common_ends_share_no_line(a: str, b: str, ends: tuple[int, int]) -> None:
    assert common_ends(list(a), list(b)) == ends


def test_a_region_over_the_budget_without_unique_lines_pairs_in_place() -> None:
    old, new = _alike(500, 2)

    pairs = same_lines(old, new)

    assert _valid_pairs(old, new, pairs)
    assert pairs == [(k, k) for k in range(1, 500, 2)]


def test_a_region_over_the_budget_of_other_lengths_is_one_replacement() -> None:
    old, new = _alike(500, 2)
    new = [*new[:100], "inserted", *new[100:]]

    # Its common tail is still paired (its first line is changed); before it nothing is.
    assert same_lines(old, new) == [(499, 500)]


def test_the_budget_is_shared_by_every_region_of_one_diff(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two regions cut at the one unique line, each without a unique line of its own: the one
    # aligned first spends the budget, the other pairs its lines in place.
    old_half, new_half = ["a", "a", "b", "b"], ["b", "b", "a", "a"]
    old, new = [*old_half, "unique", *old_half], [*new_half, "unique", *new_half]
    monkeypatch.setattr(linediff, "MATCHER_BUDGET", _matcher_cost(old_half, new_half))

    blocks = matching_blocks(old, new)

    assert_valid(old, new, blocks)
    # SequenceMatcher matched a run of two lines across the shift in one half; the other half
    # has no line equal in place, so nothing of it is matched.
    assert blocks in ([(0, 2, 2), (4, 4, 1)], [(4, 4, 1), (5, 7, 2)])


def test_the_cost_counts_every_line_walked_not_only_the_matches() -> None:
    # A file cut to a few of its lines: few visits, but each search walks the long side.
    short = [f"kept {k}" for k in range(1_400)]
    long = [
        line
        for k, kept in enumerate(short)
        for line in (kept, *(f"cut {k}.{i}" for i in range(14)))
    ]

    assert _matcher_cost(long, short) > linediff.MATCHER_BUDGET
