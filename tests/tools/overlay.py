"""Editor buffers for the tools' tests, without a server: a dict (or a callable) over the disk."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from rune_lsp.tools.documents import DiskDocuments, DocumentSource

BufferMap = Mapping[Path, str]


def _normalised(buffers: BufferMap) -> dict[Path, str]:
    return {Path(os.path.realpath(path)): text for path, text in buffers.items()}


class OverlayDocuments:
    """Editor buffers over a fallback source (the disk by default).

    `buffers` is a mapping or a callable returning one, so a live editor state can be read at
    each call. Keys are compared after resolving symlinks, as the sandbox resolves every path.
    """

    def __init__(
        self,
        buffers: BufferMap | Callable[[], BufferMap],
        fallback: DocumentSource | None = None,
    ) -> None:
        self._buffers = buffers
        self._fallback: DocumentSource = fallback if fallback is not None else DiskDocuments()

    def _current(self) -> dict[Path, str]:
        # Read at every call: a mapping the editor keeps updating stays live.
        buffers = self._buffers() if callable(self._buffers) else self._buffers
        return _normalised(buffers)

    def read_text(self, path: Path) -> str | None:
        text = self._current().get(Path(os.path.realpath(path)))
        if text is not None:
            return text
        return self._fallback.read_text(path)

    def is_open(self, path: Path) -> bool:
        return Path(os.path.realpath(path)) in self._current() or self._fallback.is_open(path)

    def open_paths(self) -> Iterable[Path]:
        paths = list(self._current())
        paths.extend(p for p in self._fallback.open_paths() if p not in paths)
        return paths
