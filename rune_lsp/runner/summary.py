"""How a run ended, in a few words: the one wording for the editor and the terminal.

A run started by `Fix this` or `rune-lsp fix` is always asked to change code, so one that
ends `completed` (or `incomplete`) without proposing any file change must not read as if
something was fixed: its summary says "no change proposed". The run result itself (outcome,
empty `edits`) is what programs read and stays as it is (CONTRACT section 6).
"""

from __future__ import annotations

from collections import Counter

from rune_lsp.loop.records import EditRecord, RunResult
from rune_lsp.loop.statuses import EDIT_STATUSES, UNDONE, WITHDRAWN

NO_CHANGE = "no change proposed"


def outcome_words(result: RunResult) -> str:
    """`completed`, or `completed · no change proposed` when the run answered without one."""
    changes = [edit for edit in result.edits if edit.tool != "run_command"]
    if not changes and result.outcome in ("completed", "incomplete"):
        return f"{result.outcome} · {NO_CHANGE}"
    return result.outcome


#: The summary's words beyond the statuses: an edit the run ended on before the user decided
#: (its status stays `pending`) and one the user took back with Ctrl+Z (its status stays what
#: landed): neither is pending nor applied any more.
WITHDRAWN_WORD = "withdrawn"
UNDONE_WORD = "undone"
_WORDS = (*EDIT_STATUSES, WITHDRAWN_WORD, UNDONE_WORD)


def edit_word(edit: EditRecord) -> str:
    """How the summary names what became of one edit of a finished run."""
    if edit.status == "pending" and edit.detail.startswith(WITHDRAWN):
        return WITHDRAWN_WORD
    if edit.detail.startswith(UNDONE):
        return UNDONE_WORD
    return edit.status


def run_summary(result: RunResult) -> str:
    """The editor's last word on a run: `completed · 1 edit applied · check passed`,
    `completed · no change proposed`, `failed · <why>`."""
    parts = [outcome_words(result)]
    changes = [edit for edit in result.edits if edit.tool != "run_command"]
    if changes:
        counts = Counter(edit_word(edit) for edit in changes)
        noun = "edit" if len(changes) == 1 else "edits"
        if len(counts) == 1:
            parts.append(f"{len(changes)} {noun} {next(iter(counts))}")
        else:
            listed = ", ".join(f"{counts[w]} {w}" for w in _WORDS if counts[w])
            parts.append(f"{len(changes)} {noun}: {listed}")
    if result.verified is not None:
        parts.append("check passed" if result.verified else "check failed")
    if result.error:
        parts.append(result.error)
    return " · ".join(parts)
