"""`edit_file`: replace one exact, unique occurrence; computes the change, writes nothing."""

from __future__ import annotations

import difflib

from rune_lsp.lines import strip_copied_numbers
from rune_lsp.loop.state import PreparedEdit, ToolOutcome
from rune_lsp.text_clip import IN_LINE, clip
from rune_lsp.tools.context import ToolContext
from rune_lsp.tools.errors import ToolError
from rune_lsp.tools.schemas import EditFileArgs
from rune_lsp.tools.text import iter_lines

MAX_LISTED_MATCHES = 20
MAX_CONTEXT_LINES = 12


def prepare_edit(
    ctx: ToolContext, args: EditFileArgs, *, call_id: str, edit_id: str, reason: str
) -> PreparedEdit | ToolOutcome:
    """The change to review, or (`ok`, nothing to review) a change the file already holds:
    `old_text` is gone and `new_text` is there once. Small models re-send the edit a code block
    of theirs already made; refused, that tripped the breaker on a fixed file."""
    if not args.old_text:
        raise ToolError(
            "old_text is empty. edit_file replaces existing text; use write_file to create a "
            "file or to replace all of it."
        )
    if args.old_text == args.new_text:
        raise ToolError("old_text and new_text are identical; the edit would change nothing.")
    path = ctx.write_path(args.path)
    shown = ctx.show(path)
    current = ctx.read_document(path)
    if current is None:
        raise ToolError(f"{shown} does not exist. Use write_file to create it.")
    old, new = args.old_text, args.new_text
    positions = find_all(current, old)
    if not positions and (unnumbered := strip_copied_numbers(old)) is not None:
        # Small models copy read_file's `  12 | ` numbering into old_text (and new_text).
        old, new = unnumbered, strip_copied_numbers(new) or new
        positions = find_all(current, old)
    if not positions and "\r\n" in current and "\r" not in old:
        # The model writes `\n`; a CRLF file is edited with its own line endings.
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        positions = find_all(current, old)
    if not positions and new.strip() and len(made := find_all(current, new)) == 1:
        return ToolOutcome(
            status="ok",
            content=f"old_text was not found in {shown}, but new_text is there already (line "
            f"{_line_of(current, made[0])}): that change is made. Nothing was changed.",
        )
    if not positions:
        raise ToolError(_no_match(shown, current, args.old_text))
    if len(positions) > 1:
        raise ToolError(_several(shown, current, positions))
    at = positions[0]
    return PreparedEdit(
        edit_id=edit_id,
        call_id=call_id,
        tool="edit_file",
        path=str(path),
        old_text=current,
        new_text=current[:at] + new + current[at + len(old) :],
        reason=reason,
    )


def find_all(text: str, needle: str) -> list[int]:
    """Start offsets of every occurrence, overlapping ones included (`aa` twice in `aaa`)."""
    found: list[int] = []
    at = text.find(needle)
    while at != -1:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _several(shown: str, current: str, positions: list[int]) -> str:
    lines = [str(_line_of(current, at)) for at in positions[:MAX_LISTED_MATCHES]]
    more = "" if len(positions) <= MAX_LISTED_MATCHES else ", ..."
    return (
        f"old_text occurs {len(positions)} times in {shown} (starting at lines "
        f"{', '.join(lines)}{more}). Include more surrounding lines in old_text so that it "
        "matches exactly once."
    )


def _no_match(shown: str, current: str, old_text: str) -> str:
    head = f"old_text was not found in {shown}."
    hint = (
        "Copy old_text exactly from the file's current text (read_file shows it), "
        "including indentation and blank lines."
    )
    window = _closest_window(current, old_text)
    if not window:
        return f"{head} No similar lines were found. {hint}"
    return f"{head} The closest lines are:\n{window}\n{hint}"


def _closest_window(current: str, old_text: str) -> str:
    """The file lines that best resemble old_text's first line, as many as old_text has."""
    wanted = list(iter_lines(old_text))
    anchor = next((line.strip() for line in wanted if line.strip()), "")
    if not anchor:
        return ""
    lines = list(iter_lines(current))
    stripped = [line.strip() for line in lines]
    best = difflib.get_close_matches(anchor, stripped, n=1, cutoff=0.5)
    if not best:
        return ""
    first = stripped.index(best[0])
    count = min(max(len(wanted), 1), MAX_CONTEXT_LINES)
    shown = lines[first : first + count]
    width = max(4, len(str(first + len(shown))))
    return "\n".join(
        f"{number:>{width}} | {clip(line, 200, marker=IN_LINE)}"
        for number, line in enumerate(shown, start=first + 1)
    )
