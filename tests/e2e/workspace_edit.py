"""Staging a `WorkspaceEdit` the way an editor applies it, before anything is committed.

Every change is computed first, so an edit that fails changes nothing (transactional, like VS
Code's `textOnlyTransactional`). What a stale document version does depends on the editor: VS
Code's language client refuses the whole edit, Neovim skips that document's edits and still
reports success.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from tests.lsp_text import apply_edits


class EditFailed(Exception):
    """The editor cannot apply the edit; the message is its failureReason (may be empty)."""


@dataclass(frozen=True)
class OpenDocument:
    text: str
    version: int


@dataclass
class Staged:
    """One document's text after the edit, and the text edits that made it."""

    path: Path
    uri: str
    text: str
    created: bool = False
    edits: list[tuple[types.Range, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Stager:
    """`open`: the editor's buffers by URI. `keep`: indexes of the confirm-needing hunks the
    user leaves ticked (None: all). `refuse_stale`: refuse (VS Code) rather than skip (Neovim)
    a document edit for another version."""

    open: Mapping[str, OpenDocument]
    encoding: str
    keep: frozenset[int] | None = None
    refuse_stale: bool = True

    def stage(self, edit: types.WorkspaceEdit) -> list[Staged]:
        staged: dict[str, Staged] = {}
        confirm_index = itertools.count()
        needs_confirmation = {
            key
            for key, annotation in (edit.change_annotations or {}).items()
            if annotation.needs_confirmation
        }
        for change in edit.document_changes or ():
            if isinstance(change, types.CreateFile):
                self._create(change, staged)
            elif isinstance(change, types.TextDocumentEdit):
                target = self._target(change.text_document.uri, staged)
                if self._stale(change.text_document):
                    if self.refuse_stale:
                        raise EditFailed("")  # vscode-languageclient: no reason given
                    continue  # Neovim: "buffer newer than edits"
                target.edits.extend(self._kept(change.edits, needs_confirmation, confirm_index))
            else:
                raise EditFailed(f"unsupported resource operation {type(change).__name__}")
        for uri, text_edits in (edit.changes or {}).items():
            self._target(uri, staged).edits.extend((e.range, e.new_text) for e in text_edits)
        for target in staged.values():
            target.text = apply_edits(target.text, target.edits, self.encoding)
        return list(staged.values())

    def _stale(self, document: types.OptionalVersionedTextDocumentIdentifier) -> bool:
        buffer = self.open.get(document.uri)
        return (
            document.version is not None
            and buffer is not None
            and document.version != buffer.version
        )

    def _kept(
        self,
        edits: tuple[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit, ...]
        | list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit],
        needs_confirmation: set[str],
        confirm_index: Iterator[int],
    ) -> Iterator[tuple[types.Range, str]]:
        for text_edit in edits:
            if not isinstance(text_edit, types.TextEdit | types.AnnotatedTextEdit):
                raise EditFailed("snippet edits are not supported")
            confirm = (
                isinstance(text_edit, types.AnnotatedTextEdit)
                and text_edit.annotation_id in needs_confirmation
            )
            if confirm and self.keep is not None and next(confirm_index) not in self.keep:
                continue  # the user unticked this hunk in VS Code's preview
            yield text_edit.range, text_edit.new_text

    def _create(self, change: types.CreateFile, staged: dict[str, Staged]) -> None:
        path = path_of(change.uri)
        exists = path.exists() or change.uri in self.open or change.uri in staged
        options = change.options
        if exists and not (options and (options.overwrite or options.ignore_if_exists)):
            raise EditFailed(f"{path} already exists")
        staged[change.uri] = Staged(path, change.uri, "", created=True)

    def _target(self, uri: str, staged: dict[str, Staged]) -> Staged:
        if uri not in staged:
            path = path_of(uri)
            buffer = self.open.get(uri)
            if buffer is not None:
                text = buffer.text
            elif path.is_file():
                text = path.read_text(encoding="utf-8")
            else:
                raise EditFailed(f"{path} does not exist")
            staged[uri] = Staged(path, uri, text)
        return staged[uri]


def path_of(uri: str) -> Path:
    fs_path = to_fs_path(uri)
    if fs_path is None:
        raise EditFailed(f"not a file URI: {uri}")
    return Path(fs_path)
