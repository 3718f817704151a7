"""Writing approved changes: the ChangeWriter protocol and the atomic disk writer."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Protocol

#: Mode of a newly created file (an existing file keeps its own).
NEW_FILE_MODE = 0o644


class ChangeWriter(Protocol):
    async def write(self, path: Path, text: str) -> None:
        """Make `path` hold `text`, creating missing parent directories."""
        ...


class DiskWriter:
    """Writes through a temporary file and `os.replace`: a reader never sees half a file.

    Replacing also means a symlink at the final path is replaced, not followed.
    """

    async def write(self, path: Path, text: str) -> None:
        await asyncio.to_thread(write_atomic, path, text)


def write_atomic(path: Path, text: str) -> None:
    data = text.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    fd, temporary = tempfile.mkstemp(prefix=".rune-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
