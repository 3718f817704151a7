"""Finished runs' conversations, kept for a follow-up turn (`rune.fixThis` with `continues`).

A follow-up starts from a run's transcript as the model saw it (docs/interface.md#commands).
A receipt holds no messages, so the transcript is kept beside it, `transcripts/<runId>.json`,
scrubbed of the run's secrets like the receipt, and only for the last `max_count` runs (the
newest writes evict the oldest, in memory and on disk): a follow-up is asked for soon after a
run, not weeks later. Within one server the recent ones are served from memory.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from rune_lsp.loop.messages import Message
from rune_lsp.store.atomic import atomic_write_text, read_json_model, stored_files
from rune_lsp.store.runids import checked_run_id
from rune_lsp.store.scrub import Scrubber

log = logging.getLogger(__name__)

#: Runs whose transcript is kept for a follow-up.
MAX_TRANSCRIPTS = 20
#: A transcript larger than this (UTF-8 JSON) is not kept: the follow-up is refused as expired
#: rather than a disk filled by a runaway run. The loop's context budget keeps real ones far
#: below it.
MAX_TRANSCRIPT_BYTES = 4 * 1024 * 1024


class Transcript(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_id: str
    messages: tuple[Message, ...]


class TranscriptStore:
    """The last `max_count` finished runs' messages, under `root/transcripts/`."""

    def __init__(self, root: Path, *, max_count: int = MAX_TRANSCRIPTS) -> None:
        if max_count < 1:
            raise ValueError(f"max_count must be at least 1, got {max_count}")
        self.directory = root / "transcripts"
        self.max_count = max_count
        self._recent: OrderedDict[str, tuple[Message, ...]] = OrderedDict()

    def path(self, run_id: str) -> Path:
        """Where the transcript of `run_id` lives; raises InvalidRunIdError for an unsafe id."""
        return self.directory / f"{checked_run_id(run_id)}.json"

    def save(
        self, run_id: str, messages: Sequence[Message], *, secrets: Sequence[str | None]
    ) -> bool:
        """Keep a finished run's messages (without its system message: a follow-up gets its
        own). False when it is too large or could not be written (logged): the run's result
        does not depend on it."""
        kept = tuple(m for m in messages if m.role != "system")
        transcript = Scrubber(secrets).model(Transcript(run_id=run_id, messages=kept))
        text = transcript.model_dump_json()
        if len(text.encode()) > MAX_TRANSCRIPT_BYTES:
            log.info("transcript of run %s not kept: larger than %d bytes", run_id, len(text))
            return False
        self._remember(run_id, transcript.messages)
        try:
            atomic_write_text(self.path(run_id), text, durable=False)
        except OSError as exc:
            log.warning("could not keep the transcript of run %s: %s", run_id, exc)
            return False
        self._prune()
        return True

    def load(self, run_id: str) -> tuple[Message, ...] | None:
        """The messages of a run kept for a follow-up; None when unknown or expired."""
        if run_id in self._recent:
            return self._recent[run_id]
        stored = read_json_model(self.path(run_id), Transcript)
        if stored is None or stored.run_id != run_id:
            return None
        self._remember(run_id, stored.messages)
        return stored.messages

    def _remember(self, run_id: str, messages: tuple[Message, ...]) -> None:
        self._recent[run_id] = messages
        self._recent.move_to_end(run_id)
        while len(self._recent) > self.max_count:
            self._recent.popitem(last=False)

    def _prune(self) -> None:
        """The oldest transcripts beyond `max_count` go (another server may share the dir)."""
        files = stored_files(self.directory, ".json")
        if len(files) <= self.max_count:
            return
        try:
            by_age = sorted(files, key=lambda path: path.stat().st_mtime)
        except OSError as exc:
            log.warning("could not list transcripts to prune: %s", exc)
            return
        for path in by_age[: len(files) - self.max_count]:
            path.unlink(missing_ok=True)
            self._recent.pop(path.stem, None)
