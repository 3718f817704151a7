"""Bounding text, the one way rune-lsp does it: every layer cuts text with these.

Three shapes, one per need:

- `clip` keeps `limit` characters, the head (or the tail, where the end says what failed, as
  in a command's output), and a marker saying how much was dropped comes on top. For text
  someone reads on: a tool's output, a stored diff, a check's output, a cut answer.
- `shorten` fits text into `limit` characters, its marker included. For a label inside a
  sentence or a row of fixed width: a quoted value, a hint, a table cell.
- `tail_lines` keeps a log's last lines, for an error message.

Standard library only: the loop (which does no I/O and imports no outer layer) uses it too.
"""

from __future__ import annotations

from typing import Literal

Keep = Literal["head", "tail"]

#: `clip`'s markers are templates: `{dropped}`, `{kept}` and `{total}` are character counts.
ELIDED = "\n… [{dropped} more characters elided]"
ELIDED_BEFORE = "[{dropped} earlier characters elided] …\n"
#: For one row among others (a file's lines, search hits): no line break, so rows stay rows.
IN_LINE = "… [{dropped} more characters]"
#: `shorten`'s marker, taken literally.
ELLIPSIS = "..."


def clip(text: str, limit: int, keep: Keep = "head", marker: str | None = None) -> str:
    """`text` if it has at most `limit` characters; else `limit` of them and `marker`.

    `marker` (a template, see above) goes after a head and before a tail; by default it is
    `ELIDED` for a head and `ELIDED_BEFORE` for a tail.
    """
    if len(text) <= limit:
        return text
    limit = max(limit, 0)
    if marker is None:
        marker = ELIDED if keep == "head" else ELIDED_BEFORE
    note = marker.format(dropped=len(text) - limit, kept=limit, total=len(text))
    if keep == "head":
        return text[:limit] + note
    return note + text[len(text) - limit :]


def shorten(text: str, limit: int, marker: str = ELLIPSIS) -> str:
    """`text` if it has at most `limit` characters; else its head and `marker` in `limit`.

    Only the marker is left when `limit` has no room for more.
    """
    if len(text) <= limit:
        return text
    return text[: max(limit - len(marker), 0)] + marker


def tail_lines(text: str, count: int) -> str:
    """The last `count` lines of `text`, once the blank lines around all of it are gone."""
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    first = next((n for n, line in enumerate(lines) if line.strip()), len(lines))
    return "\n".join(lines[max(len(lines) - count, first) :])


def first_line(text: str) -> str:
    """The first line of `text` that is not blank, stripped ("" when there is none): a one-line
    summary of the model's reason for a change."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")
