"""Keeping stored text bounded, whatever a run read or said.

Two tools: `clip` caps one string (keeping its head, or its tail for command output), and
`fit_budget` shortens a set of strings, longest first, until a total size is met.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

Keep = Literal["head", "tail"]
#: Clipped text is never shortened below this many characters (plus the elision marker).
MIN_KEPT = 16


def clip(text: str, limit: int, keep: Keep = "head") -> str:
    """`text` if it has at most `limit` characters; else its head (or tail) and a marker."""
    if len(text) <= limit:
        return text
    dropped = len(text) - limit
    if keep == "head":
        return f"{text[:limit]}{_marker(dropped, keep)}"
    return f"{_marker(dropped, keep)}{text[len(text) - limit :]}"


def _marker(dropped: int, keep: Keep) -> str:
    if keep == "head":
        return f"\n… [{dropped} more characters elided]"
    return f"[{dropped} earlier characters elided] …\n"


@dataclass
class Slot:
    """One shortenable string: how to read it, how to replace it, and which end matters."""

    label: str
    get: Callable[[], str]
    set: Callable[[str], None]
    keep: Keep = "head"


def fit_budget(slots: Sequence[Slot], excess: int) -> tuple[int, list[str]]:
    """Shorten the longest slots until about `excess` characters are gone.

    Finds the largest common length L such that clipping every slot longer than L to L removes
    `excess` characters (markers included), then clips. The longest fields lose most; short
    fields are not touched. Returns L and the labels of the slots that were clipped.
    """
    lengths = [len(slot.get()) for slot in slots]
    if excess <= 0 or not lengths:
        return max(lengths, default=0), []

    # Generous: the marker grows with the digit count, and both kinds are about as long.
    marker = max(len(_marker(10**12, "head")), len(_marker(10**12, "tail")))

    def saved(limit: int) -> int:
        return sum(length - limit - marker for length in lengths if length > limit + marker)

    low, high = MIN_KEPT, max(lengths)
    if saved(low) < excess:
        high = low
    while low < high:
        middle = (low + high + 1) // 2
        if saved(middle) >= excess:
            low = middle
        else:
            high = middle - 1
    clipped: list[str] = []
    for slot, length in zip(slots, lengths, strict=True):
        if length > low + marker:
            slot.set(clip(slot.get(), low, slot.keep))
            clipped.append(slot.label)
    return low, clipped
