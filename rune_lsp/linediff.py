"""Which lines of two texts are the same line: an exact line diff that stays fast on any input.

The one alignment of lines in rune-lsp: the review's hunks, the reader's placements and its
trailing spaces, the loop's note of what a decided edit changed all ask it. Each region is
first trimmed by its common head and tail. A region goes to `difflib.SequenceMatcher` (the
better diff where lines moved) while the work it can cost fits a budget shared by the whole
diff: SequenceMatcher is quadratic where lines repeat (a 5,000-line file of alike lines, a
unique line every 500, took 2.8 s; the reader's check of two agreeing blocks took 20 s on an
86 KB file: review of 7 December 2026). A region over the budget is split at lines that occur
exactly once on both sides (patience diff: such lines are rarely spurious matches) and the
pieces are handled the same way; one without such lines pairs its lines in place when both
sides are as long (lines changed where they stand), else is left as one replacement. Per-line
work on big regions uses C-level iterators (`map`, `compress`, `Counter`): a Python loop over
100,000 lines would be slow.
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher
from itertools import compress, count, repeat

#: (start in a, start in b, length): a run of equal lines, like SequenceMatcher's blocks.
Block = tuple[int, int, int]

#: The steps SequenceMatcher may take in one diff, all regions together, counted as
#: `_matcher_cost` bounds them (about 0.3 s of CPU): a region that would go over is cut at
#: unique lines instead.
MATCHER_BUDGET = 4_000_000


def matching_blocks(a: Sequence[str], b: Sequence[str]) -> list[Block]:
    """Runs of equal lines, increasing in both sequences, adjacent runs merged."""
    found: list[Block] = []
    regions = [(0, len(a), 0, len(b))]
    budget = [MATCHER_BUDGET]
    # An explicit stack: nesting can get deep on repetitive input, recursion would not.
    while regions:
        alo, ahi, blo, bhi = regions.pop()
        found.extend(_match_region(a, b, alo, ahi, blo, bhi, regions, budget))
    return _merge(sorted(found))


def same_lines(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """Pairs `(i, j)` with `a[i] == b[j]`, increasing in both: `matching_blocks` line by line."""
    return [(i + k, j + k) for i, j, size in matching_blocks(a, b) for k in range(size)]


def _match_region(
    a: Sequence[str],
    b: Sequence[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    regions: list[tuple[int, int, int, int]],
    budget: list[int],
) -> list[Block]:
    """The blocks found directly in one region; sub-regions left to match go onto `regions`;
    `budget[0]` is what SequenceMatcher may still spend."""
    sa, sb = a[alo:ahi], b[blo:bhi]
    blocks: list[Block] = []
    head, tail = common_ends(sa, sb)
    if head:
        blocks.append((alo, blo, head))
    if tail:
        blocks.append((ahi - tail, bhi - tail, tail))
    alo, blo, ahi, bhi = alo + head, blo + head, ahi - tail, bhi - tail
    if alo == ahi or blo == bhi:
        return blocks
    sa, sb = a[alo:ahi], b[blo:bhi]
    cost = _matcher_cost(sa, sb)
    if cost <= budget[0]:
        # Longest-block-first matching gives the better diff where lines moved around.
        budget[0] -= cost
        matcher = SequenceMatcher(None, sa, sb, autojunk=False)
        blocks.extend((alo + i, blo + j, n) for i, j, n in matcher.get_matching_blocks() if n)
        return blocks
    anchors = _unique_anchors(sa, sb)
    if anchors:
        blocks.extend(_split_at_anchors(anchors, alo, ahi, blo, bhi, regions))
    elif len(sa) == len(sb):
        blocks.extend((alo + k, blo + k, 1) for k in compress(count(), map(operator.eq, sa, sb)))
    return blocks


def _matcher_cost(a: Sequence[str], b: Sequence[str]) -> int:
    """A bound on SequenceMatcher's steps for `a` against `b`: each search for a longest match
    walks every line of `a` and visits the places it occurs in `b`, and it searches at most
    twice per matching block plus once. (Without the walk, a file cut to a few of its lines
    was estimated far too low: 2 s for 20,000 lines, review of 7 December 2026.)"""
    counts = Counter(b)
    visits = sum(map(counts.__getitem__, a))
    return (len(a) + visits) * (2 * min(len(a), len(b)) + 1)


def common_ends(a: Sequence[str], b: Sequence[str]) -> tuple[int, int]:
    """How many first and last lines `a` and `b` share, never counting a line twice (`a` =
    `b` + one more line: the head is all of `b`, the tail nothing)."""
    shortest = min(len(a), len(b))
    head = next(compress(count(), map(operator.ne, a, b)), shortest)
    tail = next(compress(count(), map(operator.ne, reversed(a), reversed(b))), shortest)
    return head, min(tail, shortest - head)


def _unique_anchors(a: Sequence[str], b: Sequence[str]) -> tuple[list[int], list[int]] | None:
    """Positions (in a, in b) of lines unique on both sides, kept as a common subsequence."""
    once_a = occurring_once(a)
    common = once_a.intersection(occurring_once(b))
    if not common:
        return None
    in_a = list(compress(range(len(a)), map(common.__contains__, a)))
    where_in_b = dict(zip(b, range(len(b)), strict=True))
    in_b = list(map(where_in_b.__getitem__, map(a.__getitem__, in_a)))
    if not all(map(operator.lt, in_b, in_b[1:])):
        # Some unique lines moved: keep the longest run that is in order on both sides.
        keep = _longest_increasing(in_b)
        in_a = [in_a[k] for k in keep]
        in_b = [in_b[k] for k in keep]
    return in_a, in_b


def occurring_once(lines: Sequence[str]) -> set[str]:
    """The lines that occur exactly once in `lines`."""
    counts = Counter(lines)
    return set(compress(counts, map(operator.eq, counts.values(), repeat(1))))


def _longest_increasing(values: Sequence[int]) -> list[int]:
    """Indexes of a longest strictly increasing subsequence (patience sorting)."""
    tops: list[int] = []  # the smallest tail value of an increasing run of each length
    top_index: list[int] = []
    previous = [-1] * len(values)
    for k, value in enumerate(values):
        pile = bisect_left(tops, value)
        if pile == len(tops):
            tops.append(value)
            top_index.append(k)
        else:
            tops[pile] = value
            top_index[pile] = k
        previous[k] = top_index[pile - 1] if pile else -1
    chain: list[int] = []
    k = top_index[-1] if top_index else -1
    while k >= 0:
        chain.append(k)
        k = previous[k]
    return chain[::-1]


def _split_at_anchors(
    anchors: tuple[list[int], list[int]],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    regions: list[tuple[int, int, int, int]],
) -> list[Block]:
    """Blocks for runs of consecutive anchors; the gaps between them become new regions."""
    # Region-local positions framed by sentinels, so the first and last gap need no special case.
    in_a = [-1, *anchors[0], ahi - alo]
    in_b = [-1, *anchors[1], bhi - blo]
    steps_a = map(operator.sub, in_a[1:], in_a)
    steps_b = map(operator.sub, in_b[1:], in_b)
    # A gap follows position k unless both sides advance by exactly one line.
    jumps = map(
        operator.or_, map(operator.ne, steps_a, repeat(1)), map(operator.ne, steps_b, repeat(1))
    )
    blocks: list[Block] = []
    run_start = 1
    for k in compress(count(), jumps):
        if k >= run_start:
            blocks.append((alo + in_a[run_start], blo + in_b[run_start], k - run_start + 1))
        gap = (alo + in_a[k] + 1, alo + in_a[k + 1], blo + in_b[k] + 1, blo + in_b[k + 1])
        # A gap empty on one side is a pure insertion or deletion: nothing left to match.
        if gap[0] < gap[1] and gap[2] < gap[3]:
            regions.append(gap)
        run_start = k + 1
    # The region's common tail was cut off before, so its last lines differ: the last anchor
    # never runs into the closing sentinel and every run of anchors ended at some jump above.
    return blocks


def _merge(blocks: list[Block]) -> list[Block]:
    merged: list[Block] = []
    for i, j, n in blocks:
        if merged:
            pi, pj, pn = merged[-1]
            if pi + pn == i and pj + pn == j:
                merged[-1] = (pi, pj, pn + n)
                continue
        merged.append((i, j, n))
    return merged
