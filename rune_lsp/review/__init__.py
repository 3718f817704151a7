"""Per-edit review: a pending edit becomes hunks, a WorkspaceEdit or a diagnostic, and what the
editor actually applied is reconciled with the proposal afterwards (docs/interface.md#review-modes).

Pure logic over lsprotocol types; the server and the terminal front end drive it.
"""

from rune_lsp.review.diff import colorize, landed_diff, unified_diff
from rune_lsp.review.errors import HunkMismatchError, ReviewError, UnsupportedEncodingError
from rune_lsp.review.hunks import Hunk, apply_hunks, compute_hunks
from rune_lsp.review.merge import Rebased, merge_texts, rebase_hunks
from rune_lsp.review.mode_b import hunk_diagnostics, review_code_actions
from rune_lsp.review.positions import TextEnd, encoded_length, hunk_range, resolve_encoding
from rune_lsp.review.reconcile import reconcile
from rune_lsp.review.verdict import Reconciliation
from rune_lsp.review.workspace_edit import (
    annotation_id,
    build_annotated_edit,
    build_plain_edit,
    edit_label,
)

__all__ = [
    "Hunk",
    "HunkMismatchError",
    "Rebased",
    "Reconciliation",
    "ReviewError",
    "TextEnd",
    "UnsupportedEncodingError",
    "annotation_id",
    "apply_hunks",
    "build_annotated_edit",
    "build_plain_edit",
    "colorize",
    "compute_hunks",
    "edit_label",
    "encoded_length",
    "hunk_diagnostics",
    "hunk_range",
    "landed_diff",
    "merge_texts",
    "rebase_hunks",
    "reconcile",
    "resolve_encoding",
    "review_code_actions",
    "unified_diff",
]
