"""A pending edit as the `WorkspaceEdit` of one `workspace/applyEdit`.

See docs/interface.md#review-modes.

Mode A (clients with change-annotation support, e.g. VS Code) gets one `AnnotatedTextEdit` per
hunk under a single annotation with `needsConfirmation: true`, so the editor opens its refactor
preview and lets the user untick hunks. Mode B gets the same hunks as plain `TextEdit`s, sent
only after the user accepted. Either way: a `documentChanges` edit pinned to the document
version the proposal was computed against, and for a new file a `CreateFile` that refuses to
overwrite, followed by the text.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol.types import (
    AnnotatedTextEdit,
    ChangeAnnotation,
    CreateFile,
    CreateFileOptions,
    OptionalVersionedTextDocumentIdentifier,
    Range,
    TextDocumentEdit,
    TextEdit,
    WorkspaceEdit,
)

from rune_lsp.loop.state import PreparedEdit
from rune_lsp.review.diff import checked_suffix
from rune_lsp.review.hunks import Hunk, check_hunks, compute_hunks
from rune_lsp.review.positions import FILE_START, Encoding, TextEnd, hunk_range


def edit_label(edit: PreparedEdit, display_path: str) -> str:
    """The preview's label: the tool and the file, e.g. `rune: edit_file src/app.py`, and a
    candidate's check (`rune: edit_file src/app.py · passes `pytest -q``)."""
    return f"rune: {edit.tool} {display_path}{checked_suffix(edit)}"


def annotation_id(edit: PreparedEdit) -> str:
    """The change annotation id of an edit: its editId, so the two are easy to correlate."""
    return edit.edit_id


def build_annotated_edit(
    edit: PreparedEdit,
    *,
    uri: str,
    version: int | None,
    label: str,
    description: str,
    encoding: Encoding | None = None,
    hunks: Sequence[Hunk] | None = None,
) -> WorkspaceEdit:
    """Mode A: every hunk an `AnnotatedTextEdit` under one annotation needing confirmation.

    `version` is the open document's version (None when it is not open); `hunks` may be
    passed when already computed, and must then come from this edit's texts.
    """
    key = annotation_id(edit)
    changes = _changes(edit, uri, version, encoding, hunks, key)
    annotation = ChangeAnnotation(
        label=label, needs_confirmation=True, description=description or None
    )
    return WorkspaceEdit(document_changes=changes, change_annotations={key: annotation})


def build_plain_edit(
    edit: PreparedEdit,
    *,
    uri: str,
    version: int | None,
    encoding: Encoding | None = None,
    hunks: Sequence[Hunk] | None = None,
) -> WorkspaceEdit:
    """Mode B, after the user accepted: the same hunks as plain `TextEdit`s."""
    return WorkspaceEdit(document_changes=_changes(edit, uri, version, encoding, hunks, None))


def _changes(
    edit: PreparedEdit,
    uri: str,
    version: int | None,
    encoding: Encoding | None,
    hunks: Sequence[Hunk] | None,
    key: str | None,
) -> list[TextDocumentEdit | CreateFile]:
    """The document changes of either mode: annotated under `key` when one is given."""
    changes: list[TextDocumentEdit | CreateFile] = []
    if edit.old_text is None:
        changes.append(_create(uri, key))
    ranges = _ranges(edit, encoding, hunks)
    if ranges:
        document = _document(uri, version if edit.old_text is not None else None)
        text_edits: list[TextEdit | AnnotatedTextEdit] = [
            TextEdit(range=where, new_text=text)
            if key is None
            else AnnotatedTextEdit(annotation_id=key, range=where, new_text=text)
            for where, text in ranges
        ]
        changes.append(TextDocumentEdit(text_document=document, edits=text_edits))
    return changes


def _ranges(
    edit: PreparedEdit, encoding: Encoding | None, hunks: Sequence[Hunk] | None
) -> list[tuple[Range, str]]:
    """(range, replacement) per hunk; a new file is one insertion of its whole content."""
    if edit.old_text is None:
        return [(FILE_START, edit.new_text)] if edit.new_text else []
    if hunks is None:
        hunks = compute_hunks(edit.old_text, edit.new_text)
    else:
        check_hunks(edit.old_text, hunks)
    end = TextEnd.of(edit.old_text)
    return [(hunk_range(hunk, end, encoding), hunk.new_text) for hunk in hunks]


def _create(uri: str, key: str | None) -> CreateFile:
    # Never clobber a file that appeared since the proposal: the editor fails the edit instead.
    options = CreateFileOptions(overwrite=False, ignore_if_exists=False)
    return CreateFile(uri=uri, options=options, annotation_id=key)


def _document(uri: str, version: int | None) -> OptionalVersionedTextDocumentIdentifier:
    return OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
