"""Free space, asked before a large write rather than discovered half-way through it."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

from rune_lsp.localmodel.errors import DiskFull

GB = 1024**3


def need_space(directory: Path, needed: int, what: str) -> None:
    """Raise DiskFull unless `directory`'s file system has `needed` bytes free."""
    directory.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(directory).free
    if free < needed:
        raise DiskFull(
            f"{what} needs {needed / GB:.1f} GB free in {directory}, which has "
            f"{free / GB:.1f} GB: free some space and retry"
        )


def is_disk_full(exc: OSError) -> bool:
    return exc.errno in (errno.ENOSPC, errno.EDQUOT)
