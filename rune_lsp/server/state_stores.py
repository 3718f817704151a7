"""Where the server keeps runs under `stateDir`: paused runs, receipts and the conversations
kept for follow-ups, each followed to the current settings (docs/interface.md#settings)."""

from __future__ import annotations

import logging

from rune_lsp.server.app import RuneServer
from rune_lsp.store.ownership import SessionLock
from rune_lsp.store.pending import PendingStore
from rune_lsp.store.receipts import ReceiptStore
from rune_lsp.store.transcripts import TranscriptStore

log = logging.getLogger(__name__)


class StateStores:
    """The stores under the current `stateDir`; a changed `stateDir` or `maxReceipts` takes
    effect on the next run."""

    def __init__(self, server: RuneServer, owner: SessionLock) -> None:
        self._server = server
        self._owner = owner
        self._receipts: ReceiptStore | None = None
        self._transcripts: TranscriptStore | None = None

    @property
    def pending(self) -> PendingStore:
        """The paused runs under the current `stateDir`, where this server is marked alive
        first: a run it pauses there is never offered as interrupted by another server."""
        root = self._server.settings.resolved_state_dir
        try:
            self._owner.hold(root)
        except OSError as exc:  # an unwritable state dir: pausing there fails on its own
            log.warning("rune: cannot mark this server's runs in %s as live: %s", root, exc)
        return PendingStore(root)

    @property
    def receipts(self) -> ReceiptStore:
        """One store while `stateDir` and `maxReceipts` stay: it counts what it wrote, so it
        need not list the directory on every run."""
        settings = self._server.settings
        current = self._receipts
        if (
            current is None
            or current.root != settings.resolved_state_dir
            or current.max_count != settings.max_receipts
        ):
            current = ReceiptStore(settings.resolved_state_dir, max_count=settings.max_receipts)
            self._receipts = current
        return current

    @property
    def transcripts(self) -> TranscriptStore:
        """The finished runs' conversations for follow-ups; one store while `stateDir` stays,
        so the recent ones are served from memory."""
        root = self._server.settings.resolved_state_dir
        current = self._transcripts
        if current is None or current.directory.parent != root:
            current = self._transcripts = TranscriptStore(root)
        return current
