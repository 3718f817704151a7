"""Which run currently speaks for a document.

A document has at most one current run. Starting another supersedes it, and resuming a run
(after a restart, or from another client) claims it again under a new generation. Every run task
holds the generation it was started with and checks it before it publishes anything, so a late
result from a superseded or moved run never becomes the document's current result.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass


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
