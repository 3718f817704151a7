"""Run ids become file names, so they are checked before they touch the filesystem.

A run id can arrive from the editor (`rune.resume [{runId}]`); `../../somewhere` must be a clear
error, not a path.
"""

from __future__ import annotations

import re

from rune_lsp.text_clip import shorten

_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class InvalidRunIdError(ValueError):
    """The run id cannot name a stored file (empty, too long, or with path characters)."""

    def __init__(self, run_id: object) -> None:
        super().__init__(
            f"invalid run id {shorten(repr(run_id), 60)}: expected 1-128 characters of letters, "
            "digits, '.', '_' or '-', starting with a letter or digit"
        )


def checked_run_id(run_id: object) -> str:
    """`run_id` itself when it is safe as a file stem; raises InvalidRunIdError otherwise."""
    if not isinstance(run_id, str) or not _RUN_ID.fullmatch(run_id) or ".." in run_id:
        raise InvalidRunIdError(run_id)
    return run_id
