"""A dead run's proposal that lands anyway, found out and recorded in the run's receipt.

VS Code cannot withdraw an open Refactor Preview: when a run is cancelled or superseded with
one open, the `$/cancelRequest` the server sends is ignored and the user may still press Apply.
The server then keeps listening for that answer; whatever lands is compared with the proposal
(review/reconcile) and written into the run's receipt, and the user is told, so nothing reaches
a file unrecorded (docs/interface.md#review-modes).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from rune_lsp.loop.state import PreparedEdit
from rune_lsp.loop.statuses import LANDED, ReconcileStatus
from rune_lsp.review import Hunk, reconcile
from rune_lsp.server.app import RuneServer
from rune_lsp.server.documents import LspDocuments
from rune_lsp.store.receipts import ReceiptStore
from rune_lsp.tools.errors import DocumentError

log = logging.getLogger(__name__)

#: How long the receipt may take to appear after the run was cancelled (it is written as the
#: run's task unwinds, usually within milliseconds).
RECEIPT_WAIT_SECONDS = 30.0
_POLL_SECONDS = 0.1


@dataclass(frozen=True)
class DeadProposal:
    """An edit whose applyEdit was still open when its run ended."""

    run_id: str
    change: PreparedEdit
    hunks: Sequence[Hunk]
    display_path: str


class LateLandings:
    """Watches the open answers of dead runs' proposals (one task each, kept referenced)."""

    def __init__(
        self,
        server: RuneServer,
        documents: LspDocuments,
        receipts: Callable[[], ReceiptStore],
        *,
        answer_wait: float,
        change_grace: float,
    ) -> None:
        self.server = server
        self.documents = documents
        self.receipts = receipts
        self.answer_wait = answer_wait
        self.change_grace = change_grace
        self._tasks: set[asyncio.Task[None]] = set()

    def watch(self, proposal: DeadProposal, answer: asyncio.Future[Any]) -> None:
        task = asyncio.ensure_future(self._watch(proposal, answer))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _watch(self, proposal: DeadProposal, answer: asyncio.Future[Any]) -> None:
        try:
            response = await asyncio.wait_for(answer, self.answer_wait)
        except Exception as exc:  # no answer, or an unusable one: nothing to record
            log.info("late answer for edit %s: none (%s)", proposal.change.edit_id, exc)
            return
        except asyncio.CancelledError:  # the server is stopping
            return
        if getattr(response, "applied", False) is not True:
            return  # the editor refused or withdrew it: the edit stays as recorded (pending)
        landed = await self._text_after(proposal.change)
        outcome = reconcile(proposal.change.old_text, proposal.hunks, landed)
        if outcome.status not in LANDED:
            return
        detail = f"it landed after the run ended ({outcome.detail})"
        await self._record(proposal, outcome.status, detail)

    async def _text_after(self, change: PreparedEdit) -> str | None:
        """The document once the accepted edit shows in it (or after the grace period)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.change_grace
        path = Path(change.path)
        while True:
            text = self._read(path)
            if text != change.old_text or loop.time() >= deadline:
                return text
            await asyncio.sleep(_POLL_SECONDS)

    def _read(self, path: Path) -> str | None:
        try:
            return self.documents.read_text(path)
        except DocumentError:
            return None

    async def _record(self, proposal: DeadProposal, status: ReconcileStatus, detail: str) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RECEIPT_WAIT_SECONDS
        edit_id = proposal.change.edit_id
        store = self.receipts()
        while not store.amend_edit(proposal.run_id, edit_id, status, detail):
            if loop.time() >= deadline:
                log.warning("rune: no receipt of run %s for edit %s", proposal.run_id, edit_id)
                break
            await asyncio.sleep(_POLL_SECONDS * 5)
        message = (
            f"rune: the edit of {proposal.display_path} was {status} after its run had ended; "
            f"the run's receipt records it."
        )
        log.warning("%s (run %s, edit %s)", message, proposal.run_id, edit_id)
        self.server.tell(message, types.MessageType.Warning)
