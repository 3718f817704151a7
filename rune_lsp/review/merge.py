"""A line-based three-way merge: two changes made to one base text, combined when they are apart.

Used when an edit was computed against text that has since changed (typically a second edit to
the same file in one model turn, after the first was applied): the edit still makes sense if
what it changes and what changed meanwhile are different lines. Anything closer than that is a
conflict and the caller keeps refusing the edit as stale; nothing is ever guessed.
"""

from __future__ import annotations

from itertools import pairwise

from rune_lsp.review.hunks import apply_hunks, compute_hunks


def merge_texts(base: str, ours: str, theirs: str) -> str | None:
    """`base` with both `base -> ours` and `base -> theirs` applied; None when they conflict.

    The two sides conflict when a hunk of one overlaps or touches a hunk of the other (no
    unchanged line between them): two insertions at the same place, or a change right next to
    another, have no single right order, so they are not merged. Identical changes on both
    sides count as a conflict too: the caller decides what an edit that already landed means.
    """
    if ours == base:
        return theirs
    if theirs == base:
        return ours
    hunks = sorted(
        (*compute_hunks(base, ours), *compute_hunks(base, theirs)),
        key=lambda hunk: (hunk.old_start, hunk.old_end),
    )
    # Hunks of one side are always a line apart, so a pair closer than that spans both sides.
    if any(first.old_end >= second.old_start for first, second in pairwise(hunks)):
        return None
    return apply_hunks(base, hunks)
