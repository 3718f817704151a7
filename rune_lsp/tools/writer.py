"""Writing approved changes: the ChangeWriter protocol and the atomic disk writer.

The temporary file lives next to the target: `os.replace` is atomic only within one file
system, and the target's own directory is the one place sure to be on the target's file system
and writable whenever the target is (a temp dir or the state dir may be on another disk, a
mount or a tmpfs). A writer killed between creating it and renaming it (`kill -9`, power loss)
leaves it behind, so each write first removes such leftovers of our own naming from that
directory, once they are old enough that no live writer can still own them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import stat
import tempfile
import time
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)

#: Mode of a newly created file (an existing file keeps its own).
NEW_FILE_MODE = 0o644
TEMP_PREFIX, TEMP_SUFFIX = ".rune-", ".tmp"
#: Exactly what `mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX)` names: 8 characters from
#: its alphabet. A user's own `.rune-notes.tmp` does not match and is never touched.
_OUR_TEMP = re.compile(r"\.rune-[a-z0-9_]{8}\.tmp")
#: A live writer renames its temp file within seconds of its last write (fsync, chmod,
#: rename); one not modified for this long belongs to a writer that died.
STALE_TEMP_SECONDS = 600.0


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
    remove_stale_temps(path.parent)
    fd, temporary = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=path.parent)
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


def remove_stale_temps(
    directory: Path, *, older_than: float = STALE_TEMP_SECONDS, now: float | None = None
) -> list[Path]:
    """Delete our own temp files that writers which died left in `directory`; returns them.

    Only regular files named exactly as `write_atomic` names them, owned by this user, and not
    modified for `older_than` seconds: younger ones may belong to a write still going on
    (another run, the CLI next to the server).
    """
    current = time.time() if now is None else now
    removed: list[Path] = []
    try:
        with os.scandir(directory) as found_entries:
            entries = [e for e in found_entries if _OUR_TEMP.fullmatch(e.name)]
    except OSError:
        return removed  # the write itself reports what is wrong with the directory
    for entry in entries:
        try:
            found = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(found.st_mode) or not _ours(found):
                continue
            if current - found.st_mtime < older_than:
                continue
            os.unlink(entry.path)
        except OSError as exc:  # gone meanwhile, or not ours to remove: leave it
            log.debug("rune: left %s in place: %s", entry.path, exc)
            continue
        log.info("rune: removed %s, left by a write that did not finish", entry.path)
        removed.append(Path(entry.path))
    return removed


def _ours(found: os.stat_result) -> bool:
    getuid = getattr(os, "getuid", None)  # POSIX only; elsewhere the name has to do
    return getuid is None or found.st_uid == getuid()
