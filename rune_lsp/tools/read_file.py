"""`read_file`: numbered lines of a document, a bounded window at a time."""

from __future__ import annotations

from pathlib import Path

from rune_lsp.text_clip import IN_LINE, clip
from rune_lsp.tools.context import ToolContext
from rune_lsp.tools.errors import ToolError
from rune_lsp.tools.schemas import ReadFileArgs
from rune_lsp.tools.text import count_lines

MAX_LINES = 400
MAX_LINE_CHARS = 2_000
_NOTE_ROOM = 160  # characters kept free for the closing note


def read_file_at(ctx: ToolContext, path: Path, args: ReadFileArgs) -> str:
    """`read_file` of `path`, which the sandbox has already let through (`ctx.read_path`)."""
    shown = ctx.show(path)
    if path.is_dir() and not ctx.documents.is_open(path):
        raise ToolError(f"{shown} is a directory; use list_dir to see its entries.")
    text = ctx.require_document(path)
    total = count_lines(text)
    if total == 0:
        return f"{shown} is empty (0 lines)."
    first = args.start_line or 1
    if first > total:
        raise ToolError(
            f"{shown} has {total} lines; start_line={first} is past the end. "
            f"Use a start_line between 1 and {total}."
        )
    wanted_last = min(args.end_line or total, total)
    rows, last = _rows(text, first, wanted_last, budget=ctx.output_cap - _NOTE_ROOM)
    note = _note(first, last, wanted_last, total)
    return "\n".join(rows + ([note] if note else []))


def _rows(text: str, first: int, wanted_last: int, *, budget: int) -> tuple[list[str], int]:
    """Numbered lines from `first`, stopping at `wanted_last`, MAX_LINES or the char budget.

    Only the lines that may be shown are split off (in C); the rest of the file stays one
    string, so reading near the end of a large file costs no per-line Python work.
    """
    width = max(4, len(str(wanted_last)))
    stop = min(wanted_last, first + MAX_LINES - 1)
    rows: list[str] = []
    used = 0
    last = first - 1
    for number, line in enumerate(text.split("\n", stop)[first - 1 : stop], start=first):
        if line.endswith("\r"):  # the `\r` of a `\r\n` belongs to the ending
            line = line[:-1]
        row = f"{number:>{width}} | {clip(line, MAX_LINE_CHARS, marker=IN_LINE)}"
        if rows and used + len(row) + 1 > budget:
            break
        rows.append(row)
        used += len(row) + 1
        last = number
    return rows, last


def _note(first: int, last: int, wanted_last: int, total: int) -> str:
    if last < wanted_last:
        return (
            f"[showing lines {first}-{last} of {total}; "
            f"call read_file with start_line={last + 1} to read on]"
        )
    if first > 1 or last < total:
        return f"[showing lines {first}-{last} of {total}]"
    return ""
