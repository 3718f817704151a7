from __future__ import annotations

import random

from rune_lsp.review.linediff import Block, _longest_increasing, matching_blocks


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
