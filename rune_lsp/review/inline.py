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
from rune_lsp.review.mode_b import hunk_span
from rune_lsp.review.positions import Encoding, encoded_length

#: Characters of a proposed line shown in a hint: it sits after the line it would replace.
HINT_LIMIT = 80


def inlay_hints(hunk: Hunk, lines: Sequence[str], encoding: Encoding | None) -> list[InlayHint]:
    """At the end of each line the hunk replaces, the line proposed in its place (`→ new`);
    lines the hunk removes say so, and lines it adds beyond those it replaces are counted on
    the last one. A pure insertion is shown at the end of the line before it (or at the start
    of the first line when it goes first). `lines`: the document's `split_lines`."""
    old = split_lines(hunk.old_text)
    new = [strip_terminator(line) for line in split_lines(hunk.new_text)]
    if not lines:
        return []
    if not old:
        at = hunk.old_start - 1
        if at < 0:
            return [_hint(Position(line=0, character=0), _added(new, 0), before=True)]
        return [_hint(_line_end(lines, min(at, len(lines) - 1), encoding), _added(new, 0))]
    hints: list[InlayHint] = []
    for offset in range(len(old)):
        line = hunk.old_start + offset
        if line >= len(lines):
            break
        label = f"→ {_clip(new[offset])}" if offset < len(new) else "→ (removed)"
        if offset == len(old) - 1 and len(new) > len(old):
            label += f" (+{len(new) - len(old)} more)"
        hints.append(_hint(_line_end(lines, line, encoding), label))
    return hints


def code_lenses(
    edit_id: str, hunk: Hunk, lines: Sequence[str], encoding: Encoding | None
) -> list[CodeLens]:
    """`Accept | Reject` above the hunk's first line, running the per-hunk commands."""
    span = hunk_span(lines, hunk, encoding)
    top = Range(start=span.start, end=span.start)
    argument = [{"editId": edit_id, "hunkId": hunk.number}]
    return [
        CodeLens(range=top, command=Command(title=title, command=command, arguments=argument))
        for title, command in (("Accept", ACCEPT_HUNK), ("Reject", REJECT_HUNK))
    ]


def _added(new: Sequence[str], shown: int) -> str:
    rest = len(new) - shown - 1
    more = f" (+{rest} more)" if rest > 0 else ""
    return f"+ {_clip(new[shown])}{more}" if new else "+"


def _hint(position: Position, label: str, *, before: bool = False) -> InlayHint:
    return InlayHint(
        position=position,
        label=label,
        padding_left=not before,
        padding_right=before,
    )


def _line_end(lines: Sequence[str], line: int, encoding: Encoding | None) -> Position:
    return Position(line=line, character=encoded_length(strip_terminator(lines[line]), encoding))


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= HINT_LIMIT else text[: HINT_LIMIT - 3] + "..."
