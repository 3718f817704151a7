"""The receipt store: `receipts/<runId>.json` and its Markdown rendering, pruned by count and age.

Receipts outlive the run, the editor and the server; the model is `receipt`'s, building one
from a run is `receipt_builder`'s.
"""

from __future__ import annotations

import builtins
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from rune_lsp.loop.statuses import EditStatus
from rune_lsp.store.atomic import (
    atomic_write_text,
    read_json_model,
    remove_stale_temps,
    stored_files,
)
from rune_lsp.store.markdown import render_receipt
from rune_lsp.store.receipt import Receipt
from rune_lsp.store.runids import checked_run_id

log = logging.getLogger(__name__)

#: A write prunes at least this often (seconds), whatever the count.
PRUNE_INTERVAL_SECONDS = 600.0


@dataclass(frozen=True)
class StoredReceipt:
    """A receipt file as listed: its run id, where it is, when it was written (epoch s)."""

    run_id: str
    path: Path
    modified: float


class ReceiptStore:
    """Receipts under `root/receipts/`: `<runId>.json` and its rendering `<runId>.md`.

    Keeps at most `max_count` receipts no older than `max_age_days`; the oldest go first.
    Listing the directory costs a stat per receipt, so a write prunes only when its count
    goes past the limit, on this store's first write, and every `PRUNE_INTERVAL_SECONDS`
    (receipts age, and another process sharing the directory writes ones we did not count).
    """

    def __init__(self, root: Path, *, max_count: int = 200, max_age_days: float = 30) -> None:
        if max_count < 1:
            raise ValueError(f"max_count must be at least 1, got {max_count}")
        self.root = root
        self.directory = root / "receipts"
        self.max_count = max_count
        self.max_age_days = max_age_days
        self._last_written: str | None = None
        self._known: int | None = None  # receipts as of the last prune, plus writes since
        self._pruned_at = float("-inf")  # time.monotonic() of the last prune

    def receipt_path(self, run_id: str) -> Path:
        """Where the receipt of `run_id` lives; raises InvalidRunIdError for an unsafe id."""
        return self.directory / f"{checked_run_id(run_id)}.json"

    def markdown_path(self, run_id: str) -> Path:
        return self.directory / f"{checked_run_id(run_id)}.md"

    def write(self, receipt: Receipt) -> Path:
        """Store `receipt` atomically (its `result.receipt` filled with the path when unset),
        and its Markdown rendering beside it for the editor's `Show receipt`.

        The rendering's directory is not fsynced: after a power loss it is complete or absent,
        and the editor then opens the JSON, which is durable. Then prunes, never removing this
        receipt. A failed prune is logged, not raised: the receipt itself is safe on disk.
        """
        path = self.receipt_path(receipt.run_id)
        if receipt.result.receipt is None:
            receipt = receipt.model_copy(
                update={"result": receipt.result.model_copy(update={"receipt": str(path)})}
            )
        atomic_write_text(path, receipt.to_json())
        self._last_written = receipt.run_id
        markdown = self.markdown_path(receipt.run_id)
        atomic_write_text(markdown, render_receipt(receipt), durable=False)
        if self._prune_due():
            self.prune()
        return path

    def _prune_due(self) -> bool:
        if self._known is None:
            return True
        self._known += 1  # a rewrite counts again: at worst an early prune
        overdue = time.monotonic() - self._pruned_at > PRUNE_INTERVAL_SECONDS
        return self._known > self.max_count or overdue

    def amend_edit(
        self,
        run_id: str,
        edit_id: str,
        status: EditStatus,
        detail: str,
        *,
        note: str | None = None,
    ) -> bool:
        """Record what became of one edit after its run's receipt was written (an editor that
        applied a dead run's proposal anyway, an edit the user undid): the edit's status and
        detail in the result and in the receipt's edit list, and a note saying so. False when
        there is no such receipt or edit (yet)."""
        receipt = self.load(run_id)
        if receipt is None or all(e.edit_id != edit_id for e in receipt.result.edits):
            return False
        update = {"status": status, "detail": detail}
        result_edits = tuple(
            e.model_copy(update=update) if e.edit_id == edit_id else e for e in receipt.result.edits
        )
        edits = tuple(
            e.model_copy(update=update) if e.edit_id == edit_id else e for e in receipt.edits
        )
        note = note or f"edit {edit_id} {status} after the run ended: {detail}"
        amended = receipt.model_copy(
            update={
                "result": receipt.result.model_copy(update={"edits": result_edits}),
                "edits": edits,
                "notes": (*receipt.notes, note),
            }
        )
        self.write(amended)
        return True

    def load(self, run_id: str) -> Receipt | None:
        """The stored receipt, or None when there is none or it is unreadable (logged)."""
        return read_json_model(self.receipt_path(run_id), Receipt)

    def list(self) -> builtins.list[StoredReceipt]:
        """Stored receipts, newest first; temp files of unfinished writes are not receipts."""
        entries: builtins.list[StoredReceipt] = []
        for path in stored_files(self.directory, ".json"):
            try:
                modified = path.stat().st_mtime
            except OSError:
                continue  # removed meanwhile by another process's prune
            entries.append(StoredReceipt(run_id=path.stem, path=path, modified=modified))
        entries.sort(key=lambda entry: (entry.modified, entry.run_id), reverse=True)
        return entries

    def prune(self, *, now: float | None = None) -> builtins.list[str]:
        """Remove receipts past the count or age limit, oldest first; returns their run ids.

        The receipt this store wrote last is always kept. Leftover temp files of writers that
        died are removed too.
        """
        current = time.time() if now is None else now
        remove_stale_temps(self.directory, now=current)
        oldest_allowed = current - self.max_age_days * 86_400
        listed = self.list()
        expired = [
            entry.run_id
            for position, entry in enumerate(listed)
            if entry.run_id != self._last_written
            and (position >= self.max_count or entry.modified < oldest_allowed)
        ]
        for run_id in reversed(expired):  # oldest first
            self._remove(run_id)
        self._known = len(listed) - len(expired)
        self._pruned_at = time.monotonic()
        return expired[::-1]

    def _remove(self, run_id: str) -> None:
        for path in (self.receipt_path(run_id), self.markdown_path(run_id)):
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:
                log.warning("rune: cannot remove old receipt %s: %s", path, exc)
