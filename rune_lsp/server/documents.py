"""The editor's view of files: open buffers (unsaved text included) first, the disk otherwise.

Also tracks document changes, so review can wait for the `didChange` that follows an accepted
`workspace/applyEdit` (clients send it shortly after their reply, not before), keep the texts
a document held while a review was open (the user types on), and notice an accepted edit being
undone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
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
        self._listeners: dict[Path, list[Callable[[str | None], None]]] = {}
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
        if path is None:
            return
        resolved = path.resolve()
        self._changed.setdefault(resolved, asyncio.Event()).set()
        listeners = self._listeners.get(resolved)
        if listeners:
            text = self.read_text(resolved)
            for listener in list(listeners):
                listener(text)

    def listen(self, path: Path, listener: Callable[[str | None], None]) -> Callable[[], None]:
        """Calls `listener` with the document's text after each change to `path`; returns
        what stops it. Listeners run synchronously, in the change's handler: keep them short."""
        listeners = self._listeners.setdefault(path.resolve(), [])
        listeners.append(listener)

        def stop() -> None:
            if listener in listeners:
                listeners.remove(listener)
            if not listeners:
                self._listeners.pop(path.resolve(), None)

        return stop

    @contextmanager
    def recording(self, path: Path, most: int = 16) -> Iterator[TextLog]:
        """The texts `path` holds after each change while the block runs (the last `most`)."""
        log = TextLog(most)
        stop = self.listen(path, log.add)
        try:
            yield log
        finally:
            stop()

    def expect_change(self, path: Path) -> asyncio.Event:
        """An event set by the next change to `path`; take it before sending the edit."""
        event = asyncio.Event()
        self._changed[path.resolve()] = event
        return event


class TextLog:
    """The texts a document held, oldest first, bounded; `changed` is set by each one."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.texts: list[str | None] = []
        self.changed = asyncio.Event()

    def add(self, text: str | None) -> None:
        self.texts.append(text)
        del self.texts[: -self.most]
        self.changed.set()
