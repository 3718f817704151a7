"""Keeping stored text bounded, whatever a run read or said.

`fit_budget` shortens a set of strings, longest first, until a total size is met; each string
is cut by `rune_lsp.text_clip.clip`, like every other text in rune-lsp.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rune_lsp.text_clip import ELIDED, ELIDED_BEFORE, Keep, clip

#: Clipped text is never shortened below this many characters (plus the elision marker).
MIN_KEPT = 16


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
    marker = max(len(template.format(dropped=10**12)) for template in (ELIDED, ELIDED_BEFORE))

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
