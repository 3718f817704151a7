"""Per-edit review in the editor (CONTRACT section 3).

Mode A, clients with change-annotation support (VS Code): one `workspace/applyEdit` per pending
edit, never two at once, reconciled afterwards against what actually landed. Mode B, any other
client: each pending edit is an Information diagnostic with Accept / Reject / Show diff actions,
and only an accept sends a plain `workspace/applyEdit`. Commands ask with
`window/showMessageRequest`. Every path re-checks the rules right before anything is sent.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from lsprotocol import types

from rune_lsp.loop.state import (
    Approve,
    Decision,
    Landed,
    PreparedChange,
    PreparedCommand,
    PreparedEdit,
    Reject,
    RunState,
    ToolOutcome,
)
from rune_lsp.review import (
    build_annotated_edit,
    build_plain_edit,
    compute_hunks,
    pending_diagnostic,
    reconcile,
    review_code_actions,
    unified_diff,
)
from rune_lsp.server.app import RuneServer
from rune_lsp.server.documents import LspDocuments, uri_of

log = logging.getLogger(__name__)

#: How long to wait for the `didChange` that follows an accepted applyEdit.
CHANGE_GRACE_SECONDS = 2.0

Dispatch = Callable[[PreparedChange], Awaitable[ToolOutcome | None]]
Verdict = Literal["accept", "reject"]


@dataclass
class OpenReview:
    """A mode-B edit waiting for the user's accept or reject."""

    run_id: str
    change: PreparedEdit
    uri: str
    diagnostic: types.Diagnostic
    verdict: asyncio.Future[Verdict]
    settled: asyncio.Future[str] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class ReviewDesk:
    """Server-wide review state: the mode-A queue and the open mode-B reviews."""

    def __init__(self, server: RuneServer, documents: LspDocuments) -> None:
        self.server = server
        self.documents = documents
        # VS Code discards an open refactor preview when another applyEdit arrives.
        self.apply_lock = asyncio.Lock()
        self.open: dict[str, OpenReview] = {}

    # --- mode B commands -------------------------------------------------------------------------

    async def resolve(self, edit_id: str, verdict: Verdict) -> str:
        review = self.open.get(edit_id)
        if review is None:
            raise KeyError(edit_id)
        if not review.verdict.done():
            review.verdict.set_result(verdict)
        return await review.settled

    def diff_of(self, edit_id: str) -> str:
        review = self.open.get(edit_id)
        if review is None:
            raise KeyError(edit_id)
        return unified_diff(review.change, display_path=self._display(review.change))

    def code_actions(self, uri: str, range_: types.Range) -> list[types.CodeAction]:
        actions: list[types.CodeAction] = []
        for review in self.open.values():
            if review.uri == uri and _overlaps(review.diagnostic.range, range_):
                actions.extend(review_code_actions(review.change.edit_id, review.diagnostic))
        return actions

    def withdraw(self, run_id: str) -> None:
        for edit_id, review in list(self.open.items()):
            if review.run_id == run_id:
                if not review.verdict.done():
                    review.verdict.cancel()
                self.open.pop(edit_id, None)
                self.publish(review.uri)

    def publish(self, uri: str) -> None:
        diagnostics = [r.diagnostic for r in self.open.values() if r.uri == uri]
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )

    def _display(self, change: PreparedEdit) -> str:
        return change.path


@dataclass
class LspReviewer:
    """Decides the pending changes of one run through the editor."""

    desk: ReviewDesk
    run_id: str
    origin_uri: str
    dispatch: Dispatch  # the loop's re-check of a change right before it is sent
    request_timeout: float
    display_path: Callable[[str], str]

    @property
    def server(self) -> RuneServer:
        return self.desk.server

    async def decide(self, change: PreparedChange, state: RunState) -> Decision:
        if isinstance(change, PreparedCommand):
            return await self._ask_to_run(change)
        if self.server.annotation_support:
            return await self._preview(change)
        return await self._by_diagnostic(change)

    async def withdraw(self) -> None:
        self.desk.withdraw(self.run_id)

    # --- mode A ---------------------------------------------------------------------------------

    async def _preview(self, change: PreparedEdit) -> Decision:
        async with self.desk.apply_lock:
            refusal = await self.dispatch(change)
            if refusal is not None:
                return _refused(refusal)
            path = Path(change.path)
            hunks = compute_hunks(change.old_text or "", change.new_text)
            documents = self.desk.documents
            label = f"rune: {change.tool} {self.display_path(change.path)}"
            edit = build_annotated_edit(
                change,
                uri=documents.uri_for(path),
                version=documents.version(path),
                label=label,
                description=change.reason or label,
                encoding=self._encoding(),
                hunks=hunks,
            )
            changed = documents.expect_change(path)
            response = await self.server.workspace_apply_edit_async(
                types.ApplyWorkspaceEditParams(edit=edit, label=label)
            )
            if not response.applied:
                reason = response.failure_reason or "the user rejected the edit in the preview"
                return Landed(status="rejected", detail=reason)
            landed = await self._text_after(path, changed)
            if landed is None:
                return Landed(status="stale", detail="the file could not be read after the edit")
            outcome = reconcile(change.old_text, hunks, landed)
            return Landed(status=outcome.status, detail=outcome.detail)

    async def _text_after(self, path: Path, changed: asyncio.Event) -> str | None:
        """The text after an accepted edit: the buffer once its didChange arrived, else disk."""
        try:
            await asyncio.wait_for(changed.wait(), CHANGE_GRACE_SECONDS)
        except TimeoutError:
            log.info("no didChange for %s after applyEdit; reading what is there", path)
        return self.desk.documents.read_text(path)

    # --- mode B ---------------------------------------------------------------------------------

    async def _by_diagnostic(self, change: PreparedEdit) -> Decision:
        path = Path(change.path)
        hunks = compute_hunks(change.old_text or "", change.new_text)
        documents = self.desk.documents
        exists = change.old_text is not None
        uri = documents.uri_for(path) if exists else self.origin_uri
        diagnostic = pending_diagnostic(
            change, hunks, encoding=self._encoding(), new_file=not exists
        )
        loop = asyncio.get_running_loop()
        review = OpenReview(self.run_id, change, uri, diagnostic, verdict=loop.create_future())
        self.desk.open[change.edit_id] = review
        self.desk.publish(uri)
        try:
            verdict = await review.verdict
            decision = await self._settle(change, verdict)
        finally:
            self.desk.open.pop(change.edit_id, None)
            self.desk.publish(uri)
        status = decision.status if isinstance(decision, Landed) else "rejected"
        if not review.settled.done():
            review.settled.set_result(status)
        return decision

    async def _settle(self, change: PreparedEdit, verdict: Verdict) -> Decision:
        if verdict == "reject":
            return Reject(reason="the user rejected the edit in the editor")
        async with self.desk.apply_lock:
            refusal = await self.dispatch(change)
            if refusal is not None:
                return _refused(refusal)
            path = Path(change.path)
            documents = self.desk.documents
            edit = build_plain_edit(
                change,
                uri=documents.uri_for(path),
                version=documents.version(path),
                encoding=self._encoding(),
            )
            response = await self.server.workspace_apply_edit_async(
                types.ApplyWorkspaceEditParams(edit=edit, label=f"rune: {change.tool}")
            )
        if response.applied:
            return Landed(status="applied", detail="the user accepted the edit; it was applied")
        reason = response.failure_reason or "the editor could not apply it"
        return Landed(status="rejected", detail=f"the editor refused the edit: {reason}")

    def _encoding(self) -> str | None:
        """The position encoding pygls negotiated at initialize (None: UTF-16)."""
        encoding = self.server.workspace.position_encoding
        return None if encoding is None else str(getattr(encoding, "value", encoding))

    # --- commands -------------------------------------------------------------------------------

    async def _ask_to_run(self, change: PreparedCommand) -> Decision:
        run, deny = types.MessageActionItem(title="Run"), types.MessageActionItem(title="Deny")
        request = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=f"rune wants to run: {change.command}\n(in {change.cwd})",
            actions=[run, deny],
        )
        try:
            answer = await asyncio.wait_for(
                self.server.window_show_message_request_async(request), self.request_timeout
            )
        except TimeoutError:
            return Reject(reason=f"no answer within {self.request_timeout:g} s; not run")
        if answer is None or answer.title != run.title:
            return Reject(reason="the user denied running this command")
        return Approve()


def _refused(refusal: ToolOutcome) -> Decision:
    status = "stale" if refusal.edit_status == "stale" else "denied"
    return Landed(status=status, detail=refusal.content)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    a_start, a_end = (a.start.line, a.start.character), (a.end.line, a.end.character)
    b_start, b_end = (b.start.line, b.start.character), (b.end.line, b.end.character)
    return a_start <= b_end and b_start <= a_end


__all__ = ["LspReviewer", "ReviewDesk", "uri_of"]
