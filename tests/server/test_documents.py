"""Open buffers first, the disk otherwise; the open set follows the editor's opens and closes."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.workspace import Workspace

from rune_lsp.server.documents import LspDocuments, uri_of


def _open(workspace: Workspace, path: Path, text: str) -> None:
    workspace.put_text_document(
        types.TextDocumentItem(uri=uri_of(path), language_id="python", version=1, text=text)
    )


def test_open_buffers_win_and_closing_falls_back_to_the_disk(tmp_path: Path) -> None:
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text("on disk a\n")
    second.write_text("on disk b\n")
    workspace = Workspace(uri_of(tmp_path))
    documents = LspDocuments(lambda: workspace)

    _open(workspace, first, "buffer a\n")
    assert documents.read_text(first) == "buffer a\n"
    assert documents.read_text(second) == "on disk b\n"

    _open(workspace, second, "buffer b\n")  # a later open is seen, not a stale answer
    assert documents.read_text(second) == "buffer b\n"
    assert sorted(documents.open_paths()) == [first.resolve(), second.resolve()]

    workspace.remove_text_document(uri_of(first))
    assert documents.read_text(first) == "on disk a\n"
    assert not documents.is_open(first) and documents.is_open(second)


def test_a_document_opened_through_a_symlink_is_found_by_its_real_path(tmp_path: Path) -> None:
    real = tmp_path / "real.py"
    real.write_text("disk\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    workspace = Workspace(uri_of(tmp_path))
    documents = LspDocuments(lambda: workspace)

    _open(workspace, link, "buffer\n")

    assert documents.read_text(real) == "buffer\n"
    assert documents.uri_for(real) == uri_of(link)
