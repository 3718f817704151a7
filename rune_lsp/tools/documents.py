"""Where the tools read file text: the editor's open buffers first, the disk otherwise.

One small protocol serves every front end: the LSP server backs it with pygls' workspace, the
terminal CLI with the disk alone. Paths are absolute and resolved.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

from rune_lsp.tools.blocked import is_blocked_inode
from rune_lsp.tools.errors import BinaryFileError, BlockedDocument, DocumentError

#: Larger files are refused rather than read: a run's memory stays bounded.
MAX_TEXT_BYTES = 8 * 1024 * 1024
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # POSIX only; Windows has no FIFOs to block on


class DocumentSource(Protocol):
    def read_text(self, path: Path) -> str | None:
        """The current text; None when there is no such file.

        Raises DocumentError (or BinaryFileError) when it exists but is not usable text.
        """
        ...

    def is_open(self, path: Path) -> bool:
        """True when an editor buffer holds this document (its text may be unsaved)."""
        ...

    def open_paths(self) -> Iterable[Path]:
        """Every open document by its resolved path, so a search also covers buffers that
        differ from the disk."""
        ...


def decode_text(data: bytes) -> str:
    """UTF-8 text or a BinaryFileError: NUL bytes and undecodable bytes mean binary."""
    if b"\0" in data:
        raise BinaryFileError("it is a binary file (contains NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BinaryFileError(
            f"it is not UTF-8 text (undecodable byte at offset {exc.start})"
        ) from exc


class DiskDocuments:
    """The disk as a document source: UTF-8 text, line endings kept as they are."""

    def __init__(self, *, max_bytes: int = MAX_TEXT_BYTES) -> None:
        self.max_bytes = max_bytes

    def read_text(self, path: Path) -> str | None:
        try:
            # Non-blocking open: opening a FIFO would otherwise wait for a writer for ever.
            with open(os.open(path, os.O_RDONLY | _NONBLOCK), "rb") as handle:
                found = os.fstat(handle.fileno())
                if stat.S_ISDIR(found.st_mode):
                    raise DocumentError("it is a directory")
                if not stat.S_ISREG(found.st_mode):
                    raise DocumentError("it is not a regular file (a pipe or a device?)")
                # Checked on the file actually opened: a link swapped in after the sandbox
                # looked at the path is caught here, and so is every file a search walks.
                if is_blocked_inode(found):
                    raise BlockedDocument(
                        "it is a hard link to a file in a credential store (such as ~/.ssh), "
                        "which is never readable by tools"
                    )
                size = found.st_size
                if size > self.max_bytes:
                    raise DocumentError(
                        f"it is too large ({size} bytes; the limit is {self.max_bytes})",
                    )
                data = handle.read(self.max_bytes + 1)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except IsADirectoryError as exc:
            raise DocumentError("it is a directory") from exc
        except OSError as exc:
            raise DocumentError(exc.strerror or str(exc)) from exc
        if len(data) > self.max_bytes:  # grew while we read it
            raise DocumentError(f"it is larger than {self.max_bytes} bytes")
        return decode_text(data)

    def is_open(self, path: Path) -> bool:
        return False

    def open_paths(self) -> Iterable[Path]:
        return ()


class SnapshotDocuments:
    """A frozen copy of the open buffers over the disk, safe to read from a worker thread.

    Keys are resolved paths and so must the queries be (the tools only pass paths that came
    through the sandbox or a walk that follows no symlinks), which keeps a large search cheap.
    """

    def __init__(self, buffers: Mapping[Path, str]) -> None:
        self._buffers = dict(buffers)
        self._disk = DiskDocuments()

    @classmethod
    def of(cls, source: DocumentSource) -> SnapshotDocuments:
        """Copy the open buffers now; a buffer that cannot be read is left to the disk."""
        buffers: dict[Path, str] = {}
        for path in source.open_paths():
            try:
                text = source.read_text(path)
            except DocumentError:
                continue
            if text is not None:
                buffers[path] = text  # open_paths() answers resolved paths already
        return cls(buffers)

    def read_text(self, path: Path) -> str | None:
        text = self._buffers.get(path)
        return text if text is not None else self._disk.read_text(path)

    def is_open(self, path: Path) -> bool:
        return path in self._buffers

    def open_paths(self) -> Iterable[Path]:
        return tuple(self._buffers)
