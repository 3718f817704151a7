"""Review mode B: each hunk of a pending edit shown as a diagnostic with review actions.

For clients without change-annotation support (Neovim, Helix, Emacs). A diagnostic marks the
lines one hunk replaces, lists its changed lines (numbered as a partial accept counts them),
and carries the editId and hunkId in `data` (the editId also in `code`), so the code actions
offered on it, and the commands they run, can name the hunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol.types import (
    CodeAction,
    CodeActionKind,
    Command,
    Diagnostic,
    DiagnosticSeverity,
    Position,
    Range,
)

from rune_lsp.interface import (
    ACCEPT_EDIT,
    ACCEPT_HUNK,
    DIAGNOSTIC_SOURCE,
    REJECT_EDIT,
    REJECT_HUNK,
    SHOW_DIFF,
)
from rune_lsp.lines import line_count, split_lines, strip_terminator
from rune_lsp.loop.state import PreparedEdit
from rune_lsp.review.diff import checked_suffix
from rune_lsp.review.hunks import Hunk, changed_lines
from rune_lsp.review.lines import Text
from rune_lsp.review.positions import FILE_START, Encoding, encoded_length
from rune_lsp.text_clip import first_line, shorten

_REASON_LIMIT = 200  # characters of the model's reason shown in the message
#: A hunk's message lists at most this many changed lines, each cut at `_LINE_LIMIT`: a
#: diagnostic is read in a hover or an echo area, and Show diff has the rest.
SHOWN_LINES = 12
_LINE_LIMIT = 120


def hunk_diagnostics(
    edit: PreparedEdit,
    hunks: Sequence[Hunk],
    *,
    total: int,
    text: str,
    encoding: Encoding | None = None,
    new_file: bool | None = None,
) -> list[Diagnostic]:
    """One Information diagnostic per hunk, over the lines it replaces in `text` (the document
    as it is now), showing its changed lines; `total` is the edit's hunk count. `new_file`
    defaults to whether the edit creates its file; a new file's diagnostics sit at the start
    of whatever document they are published on.
    """
    creates = edit.old_text is None if new_file is None else new_file
    return [
        Diagnostic(
            range=FILE_START if creates else hunk_span(text, hunk, encoding),
            message=_message(edit, hunk, total, creates),
            severity=DiagnosticSeverity.Information,
            code=edit.edit_id,
            source=DIAGNOSTIC_SOURCE,
            data={"editId": edit.edit_id, "hunkId": hunk.number},
        )
        for hunk in hunks
    ]


def review_code_actions(
    edit_id: str, diagnostic: Diagnostic, hunk_id: int | None = None
) -> list[CodeAction]:
    """The actions on a pending-edit diagnostic: the whole edit's first (every editor's own
    review test picks those by position), then the hunk's when it names one."""
    edit_argument: list[Any] = [{"editId": edit_id}]
    choices: list[tuple[str, str, list[Any]]] = [
        ("Accept edit", ACCEPT_EDIT, edit_argument),
        ("Reject edit", REJECT_EDIT, edit_argument),
        ("Show diff", SHOW_DIFF, edit_argument),
    ]
    if hunk_id is not None:
        hunk_argument: list[Any] = [{"editId": edit_id, "hunkId": hunk_id}]
        choices += [
            ("Accept hunk", ACCEPT_HUNK, hunk_argument),
            ("Reject hunk", REJECT_HUNK, hunk_argument),
        ]
    return [
        CodeAction(
            title=title,
            kind=CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            command=Command(title=title, command=command, arguments=arguments),
        )
        for title, command, arguments in choices
    ]


def _message(edit: PreparedEdit, hunk: Hunk, total: int, creates: bool) -> str:
    what = (
        f"new file, hunk {hunk.number} of {total}" if creates else f"hunk {hunk.number} of {total}"
    )
    reason = shorten(first_line(edit.reason), _REASON_LIMIT)
    summary = f": {reason}" if reason else ""
    if summary and summary[-1] not in ".!?":
        summary += "."
    elif not summary:
        summary = "."
    summary += checked_suffix(edit)
    listed = changed_lines(hunk)
    shown = [
        f"{number} {sign} {shorten(strip_terminator(line), _LINE_LIMIT)}"
        for number, (sign, line) in enumerate(listed[:SHOWN_LINES], start=1)
    ]
    if len(listed) > SHOWN_LINES:
        shown.append(f"... {len(listed) - SHOWN_LINES} more changed lines (Show diff)")
    return "\n".join(
        [
            f"rune: proposed {edit.tool} ({what}){summary}",
            *shown,
            "Code actions: Accept hunk / Reject hunk / Accept edit / Reject edit / Show diff.",
        ]
    )


def hunk_span(text: str, hunk: Hunk, encoding: Encoding | None) -> Range:
    """From the hunk's first changed line to the end of its last one, inside `text`.

    An insertion changes no line, so it marks the line it goes before (or the last line when
    it goes at the end). Whole-line ranges stay off the empty line after a final newline,
    which some clients refuse as out of range. Only the lines at the ends are looked at: this
    runs for every hunk on every keystroke in a document under review.
    """
    total = line_count(text)
    if not total:
        return FILE_START
    last_line = total - 1
    first = min(hunk.old_start, last_line)
    if hunk.old_end > hunk.old_start:
        end, content = hunk.old_end - 1, split_lines(hunk.old_text)[-1]
    elif hunk.old_start <= last_line:  # an insertion: the line it goes before
        end, content = hunk.old_start, line_from(text, hunk.old_offset)
    else:  # an insertion after the last line
        end, content = last_line, last_line_of(text)
    width = encoded_length(strip_terminator(content), encoding)
    return Range(start=Position(line=first, character=0), end=Position(line=end, character=width))


def line_from(text: str, offset: int) -> str:
    """The line of `text` that begins at `offset`, terminator included."""
    return text[offset : Text(text).line_end(offset, len(text))]


def last_line_of(text: str) -> str:
    """The last line of `text` (of the part before `text`'s end), without its terminator."""
    body = strip_terminator(text)
    return body[max(body.rfind("\n"), body.rfind("\r")) + 1 :]
