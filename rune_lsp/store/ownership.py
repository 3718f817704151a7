"""Who owns a run: which run speaks for a document, and which process owns a paused run.

In one process: a document has at most one current run. Starting another supersedes it, and
resuming a run (after a restart, or from another client) claims it again under a new
generation. Every run task holds the generation it was started with and checks it before it
publishes anything, so a late result from a superseded or moved run never becomes the
document's current result.

Between processes (every editor window starts its own server, and they share the state dir): a
paused run on disk names the session that owns it, and a session is alive exactly as long as
its process holds the lock on `sessions/<session>.lock` (`SessionLock`). The system drops that
lock when the process ends, however it ends (`kill -9` included), and a lock is never inherited
by a process that reuses the pid; so only a run whose owner's lock can be taken is offered as
interrupted, and taking it over (`claiming`) happens one server at a time.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

#: Under the state dir: one locked file per live session, and the lock that serialises claims.
SESSIONS = "sessions"
_LOCK_SUFFIX = ".lock"
_CLAIMS = ".claims"


def new_session_id() -> str:
    """An id for one server (or CLI) process; pending runs saved under another id are orphans."""
    return uuid.uuid4().hex


@dataclass(frozen=True)
class Claim:
    run_id: str
    generation: int


class RunRegistry:
    """In-memory map: document key -> the claim of its current run.

    Generations increase across all documents, so a (run id, generation) pair is never reused,
    even when the same run is claimed again.
    """

    def __init__(self) -> None:
        self._current: dict[str, Claim] = {}
        self._last_generation = 0
        # The server is single-threaded asyncio, but the CLI may resolve reviews on a thread.
        self._lock = threading.Lock()

    def claim(self, doc_key: str, run_id: str) -> int:
        """Make `run_id` the current run of `doc_key`, superseding any other; its generation.

        A run is current for one document only: claiming it here ends its claim elsewhere.
        """
        with self._lock:
            moved = [key for key, claim in self._current.items() if claim.run_id == run_id]
            for key in moved:
                del self._current[key]
            self._last_generation += 1
            self._current[doc_key] = Claim(run_id, self._last_generation)
            return self._last_generation

    def current(self, doc_key: str) -> Claim | None:
        """The current claim, e.g. to cancel the run a new claim is about to supersede."""
        with self._lock:
            return self._current.get(doc_key)

    def is_current(self, doc_key: str, run_id: str, generation: int) -> bool:
        with self._lock:
            return self._current.get(doc_key) == Claim(run_id, generation)

    def release(self, doc_key: str, run_id: str, generation: int) -> bool:
        """Drop the claim when the run ends; a stale claimant releases nothing. True if dropped."""
        with self._lock:
            if self._current.get(doc_key) != Claim(run_id, generation):
                return False
            del self._current[doc_key]
            return True


class RunOwnedElsewhereError(Exception):
    """The paused run belongs to a server that is still running (another editor window)."""

    def __init__(self, run_id: str) -> None:
        super().__init__(
            f"run {run_id} is live in another rune-lsp (another editor window); review it there"
        )
        self.run_id = run_id


class SessionLock:
    """This process's hold on its session id, under each state dir it keeps paused runs in."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._held: dict[Path, int] = {}  # state dir -> descriptor of its locked session file

    def hold(self, root: Path) -> None:
        """Mark this process as the live owner of its session under `root` (once per root)."""
        if root in self._held:
            return
        directory = root / SESSIONS
        directory.mkdir(parents=True, exist_ok=True)
        _sweep(directory)
        path = directory / f"{self.session_id}{_LOCK_SUFFIX}"
        # Locked under a temporary name, then renamed into place: a file that can be seen is
        # always locked, so no other server can take a half-made one for a dead owner's.
        # (Windows renames no open file; there the file is locked where it is.)
        temp = path if sys.platform == "win32" else directory / f".{self.session_id}.new"
        fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            if not _try_lock(fd):
                raise RuntimeError(f"session {self.session_id} is locked by another process")
            os.write(fd, f"{os.getpid()}\n".encode())  # for a person looking: who holds it
            if temp != path:
                os.replace(temp, path)
        except BaseException:
            os.close(fd)
            temp.unlink(missing_ok=True)
            raise
        self._held[root] = fd

    def release(self) -> None:
        """Give up every hold (the server is shutting down): its paused runs become
        interrupted, for the next server to offer."""
        for root, fd in self._held.items():
            with contextlib.suppress(OSError):
                (root / SESSIONS / f"{self.session_id}{_LOCK_SUFFIX}").unlink()
            os.close(fd)
        self._held.clear()


def owner_alive(root: Path, session_id: str) -> bool:
    """Whether the process owning `session_id` under `root` still lives (holds its lock).

    A session file whose lock can be taken belongs to a dead process and is removed. A file that
    cannot be checked (permissions) counts as alive: never two servers on one run.
    """
    if not session_id or session_id.startswith(".") or Path(session_id).name != session_id:
        return False  # an id that is no plain file name was never a session of ours
    path = root / SESSIONS / f"{session_id}{_LOCK_SUFFIX}"
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False  # released at shutdown, swept, or from before session locks existed
    except OSError as exc:
        log.warning("rune: cannot tell whether session %s is alive: %s", session_id, exc)
        return True
    try:
        if not _try_lock(fd):
            return True
        with contextlib.suppress(OSError):
            path.unlink()  # held while removing: a dead session's record goes with it
        return False
    finally:
        os.close(fd)


@contextlib.contextmanager
def claiming(root: Path) -> Iterator[None]:
    """One server at a time between checking a paused run's owner and taking the run over."""
    directory = root / SESSIONS
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / _CLAIMS, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        _lock(fd)  # held for a read and a write of one small file: milliseconds
        yield
    finally:
        os.close(fd)


def _sweep(directory: Path) -> None:
    """Remove the session files of dead processes (each server start would leave one)."""
    for path in directory.glob(f"*{_LOCK_SUFFIX}"):
        owner_alive(directory.parent, path.name.removesuffix(_LOCK_SUFFIX))


if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_LOCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)
