"""Review mode B: a pending edit shown as a diagnostic with Accept / Reject / Show diff actions.

For clients without change-annotation support (Neovim, Helix, Emacs). The diagnostic marks the
lines the edit would change and carries the editId in `code` and `data`, so the code actions
offered on it (and the commands they run) can name the edit.
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

from rune_lsp.interface import ACCEPT_EDIT, DIAGNOSTIC_SOURCE, REJECT_EDIT, SHOW_DIFF
from rune_lsp.lines import split_lines, strip_terminator
from rune_lsp.loop.state import PreparedEdit
from rune_lsp.review.hunks import Hunk
from rune_lsp.review.positions import FILE_START, Encoding, encoded_length

_REASON_LIMIT = 200  # characters of the model's reason shown in the message


def pending_diagnostic(
    edit: PreparedEdit,
    hunks: Sequence[Hunk],
    *,
    encoding: Encoding | None = None,
    new_file: bool | None = None,
) -> Diagnostic:
    """An Information diagnostic over the lines the edit changes, naming the edit.

    `new_file` defaults to whether the edit creates its file; a new file's diagnostic sits at
    the start of whatever document it is published on.
    """
    creates = edit.old_text is None if new_file is None else new_file
    where = FILE_START if creates else _affected_range(edit.old_text or "", hunks, encoding)
    return Diagnostic(
        range=where,
        message=_message(edit, len(hunks), creates),
        severity=DiagnosticSeverity.Information,
        code=edit.edit_id,
        source=DIAGNOSTIC_SOURCE,
        data={"editId": edit.edit_id},
    )


def review_code_actions(edit_id: str, diagnostic: Diagnostic) -> list[CodeAction]:
    """The three actions on a pending-edit diagnostic, each running a command with the editId."""
    arguments: list[Any] = [{"editId": edit_id}]
    return [
        CodeAction(
            title=title,
            kind=CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            command=Command(title=title, command=command, arguments=arguments),
        )
        for title, command in (
            ("Accept edit", ACCEPT_EDIT),
            ("Reject edit", REJECT_EDIT),
            ("Show diff", SHOW_DIFF),
        )
    ]


def _message(edit: PreparedEdit, hunk_count: int, creates: bool) -> str:
    size = f"{hunk_count} hunk" if hunk_count == 1 else f"{hunk_count} hunks"
    what = f"new file, {size}" if creates else size
    reason = _first_line(edit.reason)
    summary = f": {reason}" if reason else ""
    if summary and summary[-1] not in ".!?":
        summary += "."
    elif not summary:
        summary = "."
    return (
        f"rune: proposed {edit.tool} ({what}){summary} "
        "Use the code actions Accept edit / Reject edit / Show diff."
    )


def _first_line(reason: str) -> str:
    for line in reason.splitlines():
        if line.strip():
            text = line.strip()
            return text if len(text) <= _REASON_LIMIT else text[: _REASON_LIMIT - 3] + "..."
    return ""


def _affected_range(old_text: str, hunks: Sequence[Hunk], encoding: Encoding | None) -> Range:
    """From the first changed line to the end of the last one, inside the document.

    An insertion changes no line, so it marks the line it goes before (or the last line when
    it goes at the end). Whole-line ranges stay off the empty line after a final newline,
    which some clients refuse as out of range.
    """
    lines = split_lines(old_text)
    if not hunks or not lines:
        return FILE_START
    last_line = len(lines) - 1
    first = min(hunks[0].old_start, last_line)
    final = hunks[-1]
    end = final.old_end - 1 if final.old_end > final.old_start else final.old_start
    end = max(first, min(end, last_line))
    width = encoded_length(strip_terminator(lines[end]), encoding)
    return Range(start=Position(line=first, character=0), end=Position(line=end, character=width))
