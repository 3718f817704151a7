"""Which lines of two texts are the same line: an alignment that stays near-linear on any input.

difflib's `SequenceMatcher` is quadratic on lines repeated just under its junk threshold (a
54 KB file of 100 alike assignments repeated took 4.3 s to align: review of 7 December 2026),
and the reader must never freeze on an answer. So the lines that occur once in each text pair
first, in the longest run that keeps one order (the patience diff's anchors); between two
anchors, a stretch of equal length on both sides pairs line by line (a block that changed
lines in place), and a stretch of other lengths goes to `SequenceMatcher` only when both sides
are short.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher

#: The most lines on either side of a stretch between anchors that `SequenceMatcher` aligns.
STRETCH = 200


def same_lines(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int]]:
    """Pairs `(i, j)` with `old[i] == new[j]`, increasing in both."""
    pairs: list[tuple[int, int]] = []
    after_i = after_j = 0
    for i, j in [*_anchors(old, new), (len(old), len(new))]:
        pairs.extend(_stretch(old, new, (after_i, i), (after_j, j)))
        if i < len(old):
            pairs.append((i, j))
        after_i, after_j = i + 1, j + 1
    return pairs


def _anchors(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int]]:
    """The lines that occur once in each text, as pairs, in their longest run increasing in
    both (patience sorting: n log n)."""
    counts_old, counts_new = Counter(old), Counter(new)
    at_new = {line: j for j, line in enumerate(new) if counts_new[line] == 1}
    candidates = [
        (i, at_new[line]) for i, line in enumerate(old) if counts_old[line] == 1 and line in at_new
    ]
    tops: list[int] = []  # the smallest last `j` of an increasing run of each length
    top_at: list[int] = []  # which candidate that is
    before: list[int] = []  # each candidate's predecessor in its run
    for index, (_, j) in enumerate(candidates):
        length = bisect_left(tops, j)
        before.append(top_at[length - 1] if length else -1)
        if length == len(tops):
            tops.append(j)
            top_at.append(index)
        else:
            tops[length], top_at[length] = j, index
    run: list[tuple[int, int]] = []
    index = top_at[-1] if top_at else -1
    while index != -1:
        run.append(candidates[index])
        index = before[index]
    return run[::-1]


def _stretch(
    old: Sequence[str], new: Sequence[str], a: tuple[int, int], b: tuple[int, int]
) -> list[tuple[int, int]]:
    (a_lo, a_hi), (b_lo, b_hi) = a, b
    if a_hi - a_lo == b_hi - b_lo:
        return [(a_lo + k, b_lo + k) for k in range(a_hi - a_lo) if old[a_lo + k] == new[b_lo + k]]
    if a_hi - a_lo > STRETCH or b_hi - b_lo > STRETCH:
        return []
    matcher = SequenceMatcher(None, old[a_lo:a_hi], new[b_lo:b_hi], autojunk=False)
    return [
        (a_lo + block.a + k, b_lo + block.b + k)
        for block in matcher.get_matching_blocks()
        for k in range(block.size)
    ]
