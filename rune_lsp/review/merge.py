"""Carrying hunks over a change made to the text they were computed on, and the line-based
three-way merge built on it.

One mechanism serves both the accept-time merge (a second edit of one file in one model turn,
after the first landed) and a pending review that follows the user's typing: a hunk moves with
a change that is at least one unchanged line away from it, and is a conflict (`stale`) when the
change overlaps or touches it. Nothing is ever guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rune_lsp.review.hunks import Hunk, apply_hunks, check_hunks, compute_hunks


@dataclass(frozen=True, slots=True)
class Rebased:
    """Hunks carried over onto a changed text: `moved` fit the new text (same indexes, so
    their identities survive); `conflicts` are the indexes a change overlapped or touched."""

    moved: tuple[Hunk, ...]
    conflicts: tuple[int, ...]


def rebase_hunks(
    base: str, current: str, hunks: Sequence[Hunk], *, adjacent: bool = False
) -> Rebased:
    """`hunks` (computed on `base`) positioned on `current`, which is `base` changed elsewhere.

    Two insertions at the same place, or a change right next to a hunk, have no single right
    order, so they conflict; so does the same change made on both sides (the caller decides
    what a change that already landed means). `adjacent`: a change right next to a hunk
    (above or below it, sharing none of its lines) moves it instead, for finding where an
    editor that kept the hunk in place itself (the VS Code inline review) applied it.
    """
    check_hunks(base, hunks)
    theirs = compute_hunks(base, current)
    in_the_way = _overlaps if adjacent else _close
    moved: list[Hunk] = []
    conflicts: list[int] = []
    for hunk in hunks:
        if any(in_the_way(hunk, change) for change in theirs):
            conflicts.append(hunk.index)
            continue
        before = [
            change
            for change in theirs
            if change.old_end < hunk.old_start
            or (adjacent and change.old_end == hunk.old_start and change.old_start < hunk.old_end)
        ]
        lines = sum(_added_lines(change) for change in before)
        chars = sum(len(change.new_text) - len(change.old_text) for change in before)
        moved.append(
            replace(
                hunk,
                old_start=hunk.old_start + lines,
                old_end=hunk.old_end + lines,
                old_offset=hunk.old_offset + chars,
            )
        )
    return Rebased(moved=renumber(moved), conflicts=tuple(conflicts))


def renumber(hunks: Sequence[Hunk]) -> tuple[Hunk, ...]:
    """`new_start`/`new_end` as they are when exactly these hunks are applied (a hunk dropped
    or changed before them shifts where the later ones end up)."""
    shift = 0
    result: list[Hunk] = []
    for hunk in hunks:
        size = hunk.new_end - hunk.new_start
        start = hunk.old_start + shift
        result.append(
            hunk
            if (start, start + size) == (hunk.new_start, hunk.new_end)
            else replace(hunk, new_start=start, new_end=start + size)
        )
        shift += _added_lines(hunk)
    return tuple(result)


def merge_texts(base: str, ours: str, theirs: str) -> str | None:
    """`base` with both `base -> ours` and `base -> theirs` applied; None when they conflict."""
    if ours == base:
        return theirs
    if theirs == base:
        return ours
    rebased = rebase_hunks(base, ours, compute_hunks(base, theirs))
    if rebased.conflicts:
        return None
    return apply_hunks(ours, rebased.moved)


def _close(a: Hunk, b: Hunk) -> bool:
    """No unchanged line between them (hunks of one text are always a line apart)."""
    first, second = (a, b) if (a.old_start, a.old_end) <= (b.old_start, b.old_end) else (b, a)
    return first.old_end >= second.old_start


def _overlaps(a: Hunk, b: Hunk) -> bool:
    """They share a line, one is inserted strictly inside the other, or both are insertions
    at one place (no single right order)."""
    a_insert, b_insert = a.old_start == a.old_end, b.old_start == b.old_end
    if a_insert and b_insert:
        return a.old_start == b.old_start
    if a_insert:
        return b.old_start < a.old_start < b.old_end
    if b_insert:
        return a.old_start < b.old_start < a.old_end
    return a.old_start < b.old_end and b.old_start < a.old_end


def _added_lines(hunk: Hunk) -> int:
    return (hunk.new_end - hunk.new_start) - (hunk.old_end - hunk.old_start)
