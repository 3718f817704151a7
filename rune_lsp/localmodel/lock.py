"""An exclusive lock file shared by every rune-lsp process on the machine (POSIX `flock`).

Taken by polling, so a process waiting for another one (say, one that is building) still
notices its `Cancel`. The kernel drops the lock when its holder dies: no stale lock files.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from rune_lsp.localmodel.errors import LocalModelError
from rune_lsp.localmodel.progress import Cancel, ProvisionCancelled

try:
    import fcntl
except ImportError:  # Windows: the local provider needs a POSIX system
    fcntl = None  # type: ignore[assignment]

_POLL = 0.2


@contextlib.contextmanager
def exclusive(
    path: Path, *, cancel: Cancel | None = None, on_wait: Callable[[], None] | None = None
) -> Iterator[None]:
    """Hold `path`'s lock for the block; `on_wait` is called once if another holder is there."""
    if fcntl is None:
        raise LocalModelError("the `local` provider needs Linux or macOS")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+") as handle:
        waited = False
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not waited and on_wait is not None:
                    on_wait()
                waited = True
                if cancel is not None and cancel.is_set():
                    raise ProvisionCancelled(f"cancelled while waiting for {path}") from None
                time.sleep(_POLL)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
