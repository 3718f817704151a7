"""Unified diffs of pending edits, for Show diff and the terminal front end.

Built from the same hunks the editor receives, so what the user reads is what gets applied.
Lines keep their own terminators; a last line without one is followed by git's
`\\ No newline at end of file` marker, so the output is also a patch `git apply` accepts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from rune_lsp.lines import split_lines
from rune_lsp.loop.state import PreparedEdit
from rune_lsp.review.hunks import Hunk, compute_hunks

NO_NEWLINE = "\\ No newline at end of file\n"

_RESET = "\x1b[0m"
_HEADER = "\x1b[1m"
_RANGE = "\x1b[36m"
_REMOVED = "\x1b[31m"
_ADDED = "\x1b[32m"
_MARKER = "\x1b[2m"
_HUNK_HEADER = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def unified_diff(edit: PreparedEdit, *, display_path: str, context: int = 3) -> str:
    """The edit as a unified diff (`--- a/path` / `+++ b/path`, `/dev/null` for a new file).

    An edit that changes nothing gives "" (a new empty file still gets its two headers).
    """
    old_text = edit.old_text or ""
    hunks = compute_hunks(old_text, edit.new_text)
    if not hunks and edit.old_text is not None:
        return ""
    source = "/dev/null" if edit.old_text is None else f"a/{display_path}"
    lines = [f"--- {source}\n", f"+++ b/{display_path}\n"]
    old_lines = split_lines(old_text)
    for group in _groups(hunks, context):
        lines.extend(_render(group, old_lines, context))
    return "".join(lines)


def landed_diff(edit: PreparedEdit, before: str | None, after: str | None) -> str:
    """The document's change from `before` to `after` as the edit landed, headed like the
    edit's own diff: what a receipt shows of a `partial` edit (runner/driver.py)."""
    landed = edit.model_copy(update={"old_text": before, "new_text": after or ""})
    return unified_diff(landed, display_path=edit.path)


def _groups(hunks: Sequence[Hunk], context: int) -> Iterator[list[Hunk]]:
    """Hunks close enough that their context lines touch share one `@@` section."""
    group: list[Hunk] = []
    for hunk in hunks:
        if group and hunk.old_start - group[-1].old_end > 2 * context:
            yield group
            group = []
        group.append(hunk)
    if group:
        yield group


def _render(group: list[Hunk], old_lines: Sequence[str], context: int) -> Iterator[str]:
    first, last = group[0], group[-1]
    old_from = max(0, first.old_start - context)
    old_to = min(len(old_lines), last.old_end + context)
    new_from = first.new_start - (first.old_start - old_from)
    new_to = last.new_end + (old_to - last.old_end)
    yield f"@@ -{_span(old_from, old_to)} +{_span(new_from, new_to)} @@\n"
    position = old_from
    for hunk in group:
        yield from _prefixed(" ", old_lines[position : hunk.old_start])
        yield from _prefixed("-", old_lines[hunk.old_start : hunk.old_end])
        yield from _prefixed("+", split_lines(hunk.new_text))
        position = hunk.old_end
    yield from _prefixed(" ", old_lines[position:old_to])


def _span(start: int, stop: int) -> str:
    """A unified-diff range: 1-based start and length; an empty range names the line before."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _prefixed(mark: str, lines: Sequence[str]) -> Iterator[str]:
    for line in lines:
        yield mark + line
        if not line.endswith(("\n", "\r")):
            yield "\n" + NO_NEWLINE


def colorize(diff: str) -> str:
    """The diff with ANSI colours for a terminal: red removals, green additions."""
    out: list[str] = []
    old_left = new_left = 0  # lines still expected in the current @@ section
    for line in split_lines(diff):  # the diff was cut into lines the same way
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        in_section = old_left > 0 or new_left > 0
        if in_section and body.startswith("-"):
            colour, old_left = _REMOVED, old_left - 1
        elif in_section and body.startswith("+"):
            colour, new_left = _ADDED, new_left - 1
        elif in_section and body.startswith(" "):
            colour, old_left, new_left = "", old_left - 1, new_left - 1
        elif body.startswith("\\"):
            colour = _MARKER
        elif match := _HUNK_HEADER.match(body):
            colour = _RANGE
            old_left, new_left = _section_size(match.group(1)), _section_size(match.group(2))
        else:
            colour = _HEADER if body.startswith(("--- ", "+++ ", "diff ")) else ""
        out.append(f"{colour}{body}{_RESET}{ending}" if colour else line)
    return "".join(out)


def _section_size(count: str | None) -> int:
    return 1 if count is None else int(count)


def checked_suffix(edit: PreparedEdit) -> str:
    """` · passes `pytest -q``: the check's verdict in the scratch copy, for every view of the
    edit (the preview's label, mode B's diagnostics, the terminal's header); "" unchecked."""
    return f" · {edit.check_note}" if edit.checked is not None and edit.check_note else ""
