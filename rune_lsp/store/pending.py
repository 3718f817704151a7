"""Paused runs on disk, so that a run waiting for review survives a crash or a restart.

Each paused run is `root/pending/<runId>.json`, rewritten atomically whenever the run pauses
again and discarded when it ends. What is stored is what a new process needs to rebuild the
loop and continue (`rune.resume`): the run state, the document, the model endpoint (never the
API key) and the session that owned the run.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from rune_lsp.loop.state import RunState
from rune_lsp.store.atomic import (
    atomic_write_text,
    read_json_model,
    remove_stale_temps,
    stored_files,
)
from rune_lsp.store.ownership import RunOwnedElsewhereError, claiming, owner_alive
from rune_lsp.store.runids import InvalidRunIdError, checked_run_id
from rune_lsp.store.scrub import Scrubber
from rune_lsp.store.urls import StoredUrl

log = logging.getLogger(__name__)


def _now() -> datetime:
    return datetime.now(UTC)


class PendingRun(BaseModel):
    """A paused run as persisted. Internal format: keys are snake_case like RunState's."""

    model_config = ConfigDict(frozen=True)

    schema_version: Literal[1] = 1
    run_id: str
    state: RunState
    document_uri: str
    document_path: str | None = None  # the file behind the uri, when it is one
    # What rebuilds the loop's model; the API key is deliberately not stored.
    provider: str
    model: str
    base_url: StoredUrl
    session_id: str  # the server session that owned the run; another id means interrupted
    task: str = ""  # the instruction the run was started with
    created_at: AwareDatetime = Field(default_factory=_now)
    updated_at: AwareDatetime = Field(default_factory=_now)

    @model_validator(mode="after")
    def _one_run(self) -> PendingRun:
        checked_run_id(self.run_id)
        if self.state.run_id != self.run_id:
            raise ValueError(f"state belongs to run {self.state.run_id!r}, not {self.run_id!r}")
        return self


class PendingStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.directory = root / "pending"

    def path_for(self, run_id: str) -> Path:
        """Where `run_id` is kept; raises InvalidRunIdError for an unsafe id."""
        return self.directory / f"{checked_run_id(run_id)}.json"

    def save(self, record: PendingRun, *, secrets: Sequence[str | None] = ()) -> Path:
        """Write `record` atomically, stamped with the current time as `updated_at`.

        `secrets` are masked wherever they occur (a tool output may have shown the API key):
        the resumed model then reads `***` there, which costs it nothing it should have.
        """
        stamped = record.model_copy(update={"updated_at": _now()})
        path = self.path_for(record.run_id)
        atomic_write_text(path, Scrubber(secrets).model(stamped).model_dump_json(indent=1))
        remove_stale_temps(self.directory)
        return path

    def load(self, run_id: str) -> PendingRun | None:
        """The paused run, or None when there is none or its file is corrupt (logged)."""
        path = self.path_for(run_id)
        record = read_json_model(path, PendingRun)
        if record is not None and record.run_id != run_id:
            log.warning("rune: ignoring %s: it holds run %r", path, record.run_id)
            return None
        return record

    def list_interrupted(self, *, current_session: str | None = None) -> list[PendingRun]:
        """Paused runs whose owner is gone: neither `current_session` nor a session that is
        still alive (another editor window's server), most recent first.

        Unreadable files are skipped with a warning; listing never fails on them.
        """
        found: list[PendingRun] = []
        for path in stored_files(self.directory, ".json"):
            try:
                record = self.load(path.stem)
            except InvalidRunIdError:  # a file name that is not a run id: not ours
                log.warning("rune: ignoring unexpected file %s", path)
                continue
            if (
                record is not None
                and record.session_id != current_session
                and not owner_alive(self.root, record.session_id)
            ):
                found.append(record)
        found.sort(key=lambda record: record.updated_at, reverse=True)
        return found

    def claim(self, run_id: str, session_id: str) -> PendingRun:
        """Take the paused run over for `session_id` (held by this process, `SessionLock`)
        before continuing it, so that no other server offers or continues it meanwhile.

        Raises KeyError when there is no such run, RunOwnedElsewhereError when its owner lives.
        """
        with claiming(self.root):
            record = self.load(run_id)
            if record is None:
                raise KeyError(run_id)
            if record.session_id != session_id and owner_alive(self.root, record.session_id):
                raise RunOwnedElsewhereError(run_id)
            claimed = record.model_copy(update={"session_id": session_id})
            self.save(claimed)
            return claimed

    def discard(self, run_id: str) -> bool:
        """Forget a paused run (it ended or was abandoned); False if it was not stored."""
        try:
            self.path_for(run_id).unlink()
        except FileNotFoundError:
            return False
        return True
