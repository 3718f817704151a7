"""A pending hunk inline (mode B): the proposed text as inlay hints, Accept | Reject as lenses.

Both are offered only to clients that advertise them (the server checks), and both are built
from the hunk as it sits in the document now, so they follow the user's typing with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol.types import CodeLens, Command, InlayHint, Position, Range

from rune_lsp.interface import ACCEPT_HUNK, REJECT_HUNK
from rune_lsp.lines import split_lines, strip_terminator
from rune_lsp.review.hunks import Hunk
from rune_lsp.review.mode_b import hunk_span, last_line_of
from rune_lsp.review.positions import Encoding, encoded_length
from rune_lsp.text_clip import shorten

#: Characters of a proposed line shown in a hint: it sits after the line it would replace.
HINT_LIMIT = 80


def inlay_hints(hunk: Hunk, text: str, encoding: Encoding | None) -> list[InlayHint]:
    """At the end of each line the hunk replaces in `text`, the line proposed in its place
    (`→ new`); lines the hunk removes say so, and lines it adds beyond those it replaces are
    counted on the last one. A pure insertion is shown at the end of the line before it (or
    at the start of the first line when it goes first)."""
    old = split_lines(hunk.old_text)
    new = [strip_terminator(line) for line in split_lines(hunk.new_text)]
    if not old:
        if hunk.old_start == 0:
            return [_hint(Position(line=0, character=0), _added(new), before=True)]
        before = last_line_of(text[: hunk.old_offset])
        end = Position(line=hunk.old_start - 1, character=encoded_length(before, encoding))
        return [_hint(end, _added(new))]
    hints: list[InlayHint] = []
    for offset, line in enumerate(old):
        label = (
            f"→ {shorten(new[offset].strip(), HINT_LIMIT)}" if offset < len(new) else "→ (removed)"
        )
        if offset == len(old) - 1 and len(new) > len(old):
            label += f" (+{len(new) - len(old)} more)"
        width = encoded_length(strip_terminator(line), encoding)
        hints.append(_hint(Position(line=hunk.old_start + offset, character=width), label))
    return hints


def code_lenses(edit_id: str, hunk: Hunk, text: str, encoding: Encoding | None) -> list[CodeLens]:
    """`Accept | Reject` above the hunk's first line, running the per-hunk commands."""
    span = hunk_span(text, hunk, encoding)
    top = Range(start=span.start, end=span.start)
    argument = [{"editId": edit_id, "hunkId": hunk.number}]
    return [
        CodeLens(range=top, command=Command(title=title, command=command, arguments=argument))
        for title, command in (("Accept", ACCEPT_HUNK), ("Reject", REJECT_HUNK))
    ]


def _added(new: Sequence[str]) -> str:
    more = f" (+{len(new) - 1} more)" if len(new) > 1 else ""
    return f"+ {shorten(new[0].strip(), HINT_LIMIT)}{more}" if new else "+"


def _hint(position: Position, label: str, *, before: bool = False) -> InlayHint:
    return InlayHint(
        position=position,
        label=label,
        padding_left=not before,
        padding_right=before,
    )
