"""Carrying an edit over onto text that changed elsewhere since it was proposed.

A model often edits two places of one file in a single turn; both edits are computed against
the same text, so once the first lands the second no longer matches it. When the two touch
different lines, the second is still exactly what the model meant, so it is re-based onto
the current text instead of being refused as stale.
"""

from __future__ import annotations

from rune_lsp.loop.state import PreparedEdit
from rune_lsp.review.merge import merge_texts


def rebase_edit(change: PreparedEdit, current: str) -> PreparedEdit | None:
    """`change` as an edit of `current`, or None when it cannot be carried over safely.

    Only `edit_file` is carried over: it states a local replacement. `write_file` states the
    whole file, and merging other changes into that would write something the model did not.
    """
    if change.tool != "edit_file" or change.old_text is None:
        return None
    merged = merge_texts(change.old_text, current, change.new_text)
    if merged is None:
        return None
    return change.model_copy(update={"old_text": current, "new_text": merged})
