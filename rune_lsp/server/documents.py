"""The editor's view of files: open buffers (unsaved text included) first, the disk otherwise.

Also tracks document changes, so review can wait for the `didChange` that follows an accepted
`workspace/applyEdit` (clients send it shortly after their reply, not before).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path

from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import Workspace

from rune_lsp.tools.documents import DiskDocuments


def path_of(uri: str) -> Path | None:
    fs_path = to_fs_path(uri)
    return Path(fs_path) if fs_path else None


def uri_of(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


class LspDocuments:
    """A `DocumentSource` over pygls' workspace."""

    def __init__(self, workspace: Callable[[], Workspace]) -> None:
        self._get_workspace = workspace
        self._disk = DiskDocuments()
        self._changed: dict[Path, asyncio.Event] = {}
        # Resolving a path costs a syscall per component, and tools ask on every read: keep
        # the last answer, valid while the same documents (same URIs) are open.
        self._open_cache: tuple[tuple[str, ...], dict[Path, str]] = ((), {})

    @property
    def _workspace(self) -> Workspace:
        return self._get_workspace()

    def _open(self) -> dict[Path, str]:
        """Open documents by resolved path (clients spell URIs differently)."""
        uris = tuple(self._workspace.text_documents)
        cached_uris, cached = self._open_cache
        if uris == cached_uris:
            return cached
        by_path: dict[Path, str] = {}
        for uri in uris:
            path = path_of(uri)
            if path is not None:
                by_path[path.resolve()] = uri
        self._open_cache = (uris, by_path)
        return by_path

    def _uri(self, path: Path) -> str | None:
        """The open document at `path`, if any. A path already spelled as an open document's
        resolved path needs no resolving (tools pass resolved paths, many times a step)."""
        by_path = self._open()
        uri = by_path.get(path)
        return uri if uri is not None else by_path.get(path.resolve())

    def uri_for(self, path: Path) -> str:
        return self._uri(path) or uri_of(path)

    def read_text(self, path: Path) -> str | None:
        uri = self._uri(path)
        if uri is not None:
            return self._workspace.get_text_document(uri).source
        return self._disk.read_text(path)

    def is_open(self, path: Path) -> bool:
        return self._uri(path) is not None

    def open_paths(self) -> Iterable[Path]:
        return list(self._open())

    def version(self, path: Path) -> int | None:
        uri = self._uri(path)
        if uri is None:
            return None
        return self._workspace.get_text_document(uri).version

    def disk_text(self, path: Path) -> str | None:
        return self._disk.read_text(path)

    # --- change notifications ------------------------------------------------------------------

    def mark_changed(self, uri: str) -> None:
        path = path_of(uri)
        if path is not None:
            self._changed.setdefault(path.resolve(), asyncio.Event()).set()

    def expect_change(self, path: Path) -> asyncio.Event:
        """An event set by the next change to `path`; take it before sending the edit."""
        event = asyncio.Event()
        self._changed[path.resolve()] = event
        return event
