"""Minimal whole-line hunks between two texts, and applying any subset of them.

Each hunk replaces lines `[old_start, old_end)` of the old text; two hunks are always separated
by at least one unchanged line, so the editor can accept or discard each one on its own and
`reconcile` can tell afterwards which ones landed. Line terminators are part of the lines, so
CRLF files and a missing final newline round-trip exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rune_lsp.lines import line_count
from rune_lsp.review.errors import HunkMismatchError
from rune_lsp.review.lines import Text
from rune_lsp.review.scan import changed_spans


@dataclass(frozen=True, slots=True)
class Hunk:
    """One changed region. Lines are 0-based, ranges half-open; `old_offset` is in characters."""

    index: int  # position in the edit's hunk tuple, 0-based
    old_start: int
    old_end: int
    new_start: int
    new_end: int
    old_offset: int  # where line `old_start` begins in the old text
    old_text: str  # the replaced lines, terminators included ("" for a pure insertion)
    new_text: str  # their replacement ("" for a pure deletion)

    @property
    def number(self) -> int:
        """1-based, for people and models."""
        return self.index + 1


def compute_hunks(old_text: str, new_text: str) -> tuple[Hunk, ...]:
    """The hunks that turn `old_text` into `new_text` ("" old text for a new file)."""
    if old_text == new_text:
        return ()
    old = Text(old_text)
    hunks: list[Hunk] = []
    line = 0  # of the old text, at `seen`
    seen = 0
    shift = 0  # lines the hunks so far added (negative: removed)
    for old_start, old_stop, new_start, new_stop in changed_spans(old_text, new_text):
        line += old.terminators(seen, old_start)
        removed, added = old_text[old_start:old_stop], new_text[new_start:new_stop]
        removed_lines, added_lines = line_count(removed), line_count(added)
        hunks.append(
            Hunk(
                index=len(hunks),
                old_start=line,
                old_end=line + removed_lines,
                new_start=line + shift,
                new_end=line + shift + added_lines,
                old_offset=old_start,
                old_text=removed,
                new_text=added,
            )
        )
        seen = old_start
        shift += added_lines - removed_lines
    return tuple(hunks)


def apply_hunks(old_text: str, hunks: Sequence[Hunk], keep: Iterable[int] | None = None) -> str:
    """`old_text` with the hunks whose index is in `keep` applied (all when `keep` is None).

    Raises HunkMismatchError when the hunks were not computed from `old_text`.
    """
    kept = None if keep is None else frozenset(keep)
    pieces: list[str] = []
    position = 0
    for hunk in check_hunks(old_text, hunks):
        pieces.append(old_text[position : hunk.old_offset])
        chosen = kept is None or hunk.index in kept
        pieces.append(hunk.new_text if chosen else hunk.old_text)
        position = hunk.old_offset + len(hunk.old_text)
    pieces.append(old_text[position:])
    return "".join(pieces)


def check_hunks(old_text: str, hunks: Sequence[Hunk]) -> Sequence[Hunk]:
    """`hunks` unchanged if they fit `old_text`: in order, apart, each where it says it is."""
    text = Text(old_text)
    end = -1
    for hunk in hunks:
        stop = hunk.old_offset + len(hunk.old_text)
        fits = (
            hunk.old_offset > end
            and old_text.startswith(hunk.old_text, hunk.old_offset)
            and text.is_boundary(hunk.old_offset)
            and text.is_boundary(stop)
        )
        if not fits:
            raise HunkMismatchError(
                f"hunk {hunk.number} (line {hunk.old_start + 1}) does not match the old text"
            )
        end = stop
    return hunks
