"""Minimal whole-line hunks between two texts, and applying any subset of them.

Each hunk replaces lines `[old_start, old_end)` of the old text; two hunks are always separated
by at least one unchanged line, so the editor can accept or discard each one on its own and
`reconcile` can tell afterwards which ones landed. Line terminators are part of the lines, so
CRLF files and a missing final newline round-trip exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from rune_lsp.lines import line_count, split_lines, strip_terminator
from rune_lsp.review.errors import HunkMismatchError, LineSelectionError
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


#: What a line number in a partial accept means; the command's errors and the docs quote it.
LINE_NUMBERING = (
    "lines are numbered from 1 over the hunk's changed lines as its diagnostic lists them: "
    "its removed (-) lines first, then its added (+) lines"
)


def changed_lines(hunk: Hunk) -> list[tuple[str, str]]:
    """The hunk's changed lines in `LINE_NUMBERING` order: ("-", old line) then ("+", new)."""
    return [("-", line) for line in split_lines(hunk.old_text)] + [
        ("+", line) for line in split_lines(hunk.new_text)
    ]


def keep_lines(hunk: Hunk, lines: Iterable[int]) -> Hunk:
    """`hunk` accepted only in the changed lines numbered `lines` (see `LINE_NUMBERING`).
    Raises LineSelectionError for a number the hunk does not have."""
    chosen = frozenset(lines)
    try:
        text = kept_text(hunk.old_text, hunk.new_text, chosen)
    except LineSelectionError as exc:
        raise LineSelectionError(f"hunk {hunk.number} has {exc}") from None
    if len(chosen) == len(changed_lines(hunk)):
        return hunk
    return replace(hunk, new_text=text, new_end=hunk.new_start + line_count(text))


def kept_text(old_text: str, new_text: str, lines: Iterable[int]) -> str:
    """What replaces `old_text` when only the changed lines numbered `lines` of the change to
    `new_text` are accepted: the one per-line rule of every review (mode B's `Accept lines`,
    the VS Code extension through `rune.keepLines`, and reconciling what it landed).

    A listed removed line is removed, an unlisted one stays; a listed added line is added, an
    unlisted one is not. What stays of the old lines comes before what is added, as in a
    unified diff that lists a hunk's removals before its additions. Raises LineSelectionError
    for a number there is no changed line for, or none at all.
    """
    listed = [("-", line) for line in split_lines(old_text)] + [
        ("+", line) for line in split_lines(new_text)
    ]
    chosen = frozenset(lines)
    wrong = sorted(n for n in chosen if not 1 <= n <= len(listed))
    if wrong or not chosen:
        raise LineSelectionError(
            f"changed lines 1-{len(listed)} ({LINE_NUMBERING}); "
            f"got {', '.join(map(str, wrong)) or 'none'}"
        )
    if len(chosen) == len(listed):
        return new_text
    return _joined(
        [
            line
            for number, (sign, line) in enumerate(listed, start=1)
            if (sign == "-") != (number in chosen)
        ]
    )


def _joined(pieces: Sequence[str]) -> str:
    """Lines joined so each still ends a line. Only a hunk at the end of its text has a line
    without a terminator; when another line now follows that one, it gets the hunk's own."""
    ending = next(
        (line[len(strip_terminator(line)) :] for line in pieces if _ends_line(line)), "\n"
    )
    last = len(pieces) - 1
    return "".join(
        line if _ends_line(line) or i == last else line + ending for i, line in enumerate(pieces)
    )


def _ends_line(text: str) -> bool:
    return text.endswith(("\n", "\r"))


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
