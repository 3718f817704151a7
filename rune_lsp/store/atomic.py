"""Crash-safe file writes and forgiving reads for everything the store keeps on disk.

A reader must always see either the previous file or the complete new one, never a torn mix,
even when the process dies mid-write. Hence: write a temp file next to the target, flush and
fsync it, `os.replace` it over the target (atomic on POSIX and Windows), then fsync the directory
so the rename itself survives a power loss.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

#: Temp files are `.<target name>.<random>.tmp`: hidden, and never matching `*.json`.
TEMP_PREFIX = "."
TEMP_SUFFIX = ".tmp"
#: A temp file this old belongs to a writer that died; younger ones may still be in use.
STALE_TEMP_SECONDS = 600.0
_CHUNK = 1 << 16


def unwritable(directory: Path) -> str | None:
    """Why no file can be written in `directory` (created if missing), naming it; None when
    one can. Asked before a run starts: a run that could not keep its paused review would
    otherwise fail halfway, with the user's review open (issue 25, item 6)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory, prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX):
            pass
    except OSError as exc:
        return f"the state directory {directory} is not writable: {exc.strerror or exc}"
    return None


def atomic_write_text(path: Path, text: str, *, durable: bool = True) -> None:
    """Replace `path` with `text` (UTF-8) so that no reader ever sees a partial file.

    `durable=False` skips the directory's fsync: the data is still on disk before the rename,
    so a power loss leaves the old file or the complete new one, but the rename itself may be
    lost. For files derived from another that is durable (each fsync costs about a quarter of
    a millisecond, and a run writes several).

    On any failure the temp file is removed, the previous file is left as it was, and the error
    propagates.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp creates the file readable by its owner only: right for files that quote code.
    fd, temp_name = tempfile.mkstemp(
        dir=path.parent, prefix=f"{TEMP_PREFIX}{path.name}.", suffix=TEMP_SUFFIX
    )
    temp = Path(temp_name)
    try:
        try:
            _write_all(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    if durable:
        _fsync_directory(path.parent)


def _write_all(fd: int, data: bytes) -> None:
    # os.write may write less than asked (signals, pipes, quotas): loop until all is down.
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:_CHUNK])
        view = view[written:]


def _fsync_directory(directory: Path) -> None:
    # Makes the rename durable. Not possible on Windows (a directory cannot be opened) and
    # refused by some filesystems; the data itself is already safe, so that is not an error.
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def read_json_model(path: Path, model_type: type[M]) -> M | None:
    """The model stored at `path`, or None when the file is missing, unreadable or invalid.

    A missing file is an ordinary answer (nothing stored); anything else is logged as a warning,
    because a half-written or hand-edited file must not take its reader down.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("rune: cannot read %s: %s", path, exc)
        return None
    try:
        return model_type.model_validate_json(raw)
    except ValidationError as exc:
        log.warning(
            "rune: ignoring corrupt %s (%d problem(s), first: %s)",
            path,
            exc.error_count(),
            exc.errors()[0]["msg"] if exc.errors() else "?",
        )
        return None


def is_temp_file(path: Path) -> bool:
    return path.name.startswith(TEMP_PREFIX) and path.name.endswith(TEMP_SUFFIX)


def stored_files(directory: Path, suffix: str) -> list[Path]:
    """Files in `directory` ending in `suffix`, temp files excluded; empty if it is missing."""
    try:
        entries = list(directory.iterdir())
    except FileNotFoundError:
        return []
    except OSError as exc:
        log.warning("rune: cannot list %s: %s", directory, exc)
        return []
    return sorted(
        entry
        for entry in entries
        if entry.name.endswith(suffix) and not is_temp_file(entry) and entry.is_file()
    )


def remove_stale_temps(
    directory: Path, *, older_than: float = STALE_TEMP_SECONDS, now: float | None = None
) -> list[Path]:
    """Delete temp files left behind by writers that died; returns what was removed.

    Only temps older than `older_than` seconds go: a younger one may belong to a writer in
    another process (the CLI and the server share the state directory) that is still running.
    """
    current = time.time() if now is None else now
    removed: list[Path] = []
    try:
        entries = list(directory.iterdir())
    except OSError:
        return removed
    for entry in entries:
        if not is_temp_file(entry):
            continue
        try:
            if current - entry.stat().st_mtime < older_than:
                continue
            entry.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            log.warning("rune: cannot remove leftover %s: %s", entry, exc)
            continue
        removed.append(entry)
    return removed
