"""Per-edit review in the editor (docs/interface.md#review-modes).

Mode A, clients with change-annotation support (VS Code): one `workspace/applyEdit` per pending
edit, never two at once, reconciled afterwards against what actually landed. Mode B, any other
client: each pending edit is an Information diagnostic with Accept / Reject / Show diff actions,
and only an accept sends a plain `workspace/applyEdit`. Commands ask with
`window/showMessageRequest`. Every path re-checks the rules right before anything is sent, and
an edit the editor did not apply to the text it was proposed on is `stale`, never `rejected`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lsprotocol import types
from pygls.exceptions import JsonRpcException

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
    Hunk,
    build_annotated_edit,
    build_plain_edit,
    compute_hunks,
    edit_label,
    pending_diagnostic,
    reconcile,
    review_code_actions,
    unified_diff,
)
from rune_lsp.server.app import RuneServer
from rune_lsp.server.documents import LspDocuments
from rune_lsp.server.late import DeadProposal
from rune_lsp.server.protocol import UnusableAnswerError
from rune_lsp.tools.errors import DocumentError

log = logging.getLogger(__name__)

#: How long to wait for the `didChange` that follows an accepted applyEdit by default.
CHANGE_GRACE_SECONDS = 2.0
#: How long to wait for the editor's answer to an applyEdit by default: in VS Code that is the
#: user reading the refactor preview, so it is generous; but never for ever, since the review
#: lock is server-wide and every other review waits behind it (`RUNE_REVIEW_WAIT`).
REVIEW_WAIT_SECONDS = 600.0

#: The loop's last word before a change is sent: the change to send (rebased onto the current
#: text when another edit landed meanwhile) or the refusal (denied, stale).
Dispatch = Callable[[PreparedChange], Awaitable[PreparedChange | ToolOutcome]]
Verdict = Literal["accept", "reject"]


@dataclass
class OpenReview:
    """A mode-B edit waiting for the user's accept or reject."""

    run_id: str
    change: PreparedEdit
    uri: str
    diagnostic: types.Diagnostic
    display_path: str
    verdict: asyncio.Future[Verdict]
    # The accept/reject command's answer: the edit's final status; None: withdrawn (the run
    # ended before it could land).
    command_answer: asyncio.Future[str | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    def answer_command(self, status: str | None) -> None:
        if not self.command_answer.done():
            self.command_answer.set_result(status)


class ReviewDesk:
    """Server-wide review state: the mode-A queue and the open mode-B reviews."""

    def __init__(
        self,
        server: RuneServer,
        documents: LspDocuments,
        change_grace: float = CHANGE_GRACE_SECONDS,
        answer_wait: float = REVIEW_WAIT_SECONDS,
    ) -> None:
        self.server = server
        self.documents = documents
        self.change_grace = change_grace
        self.answer_wait = answer_wait
        # VS Code discards an open refactor preview when another applyEdit arrives.
        self.apply_lock = asyncio.Lock()
        self.open: dict[str, OpenReview] = {}

    # --- mode B commands -------------------------------------------------------------------------

    async def resolve(self, edit_id: str, verdict: Verdict) -> str | None:
        """The edit's status once decided; None when its run ended before it could land."""
        review = self.open.get(edit_id)
        if review is None:
            raise KeyError(edit_id)
        if not review.verdict.done():
            review.verdict.set_result(verdict)
        return await asyncio.shield(review.command_answer)

    def diff_of(self, edit_id: str) -> str:
        review = self.open.get(edit_id)
        if review is None:
            raise KeyError(edit_id)
        return unified_diff(review.change, display_path=review.display_path)

    def code_actions(self, uri: str, range_: types.Range) -> list[types.CodeAction]:
        actions: list[types.CodeAction] = []
        for review in self.open.values():
            if review.uri == uri and _overlaps(review.diagnostic.range, range_):
                actions.extend(review_code_actions(review.change.edit_id, review.diagnostic))
        return actions

    def withdraw(self, run_id: str) -> None:
        """Take a run's open reviews away: diagnostics cleared, pending commands answered."""
        for edit_id, review in list(self.open.items()):
            if review.run_id == run_id:
                if not review.verdict.done():
                    review.verdict.cancel()
                review.answer_command(None)
                self.open.pop(edit_id, None)
                self.publish(review.uri)

    def publish(self, uri: str) -> None:
        diagnostics = [r.diagnostic for r in self.open.values() if r.uri == uri]
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )


@dataclass
class LspReviewer:
    """Decides the pending changes of one run through the editor."""

    desk: ReviewDesk
    run_id: str
    origin_uri: str
    dispatch: Dispatch
    request_timeout: float
    display_path: Callable[[str], str]
    #: Gets a mode-A proposal whose applyEdit was still open when the run died, with the
    #: answer still to come (server/late.py records what lands).
    on_dead: Callable[[DeadProposal, asyncio.Future[Any]], None] | None = None

    @property
    def server(self) -> RuneServer:
        return self.desk.server

    @property
    def documents(self) -> LspDocuments:
        return self.desk.documents

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
            sent = await self.dispatch(change)
            if not isinstance(sent, PreparedEdit):
                return _refused(sent)
            change = sent
            path = Path(change.path)
            hunks = compute_hunks(change.old_text or "", change.new_text)
            label = edit_label(change, self.display_path(change.path))
            edit = build_annotated_edit(
                change,
                uri=self.documents.uri_for(path),
                version=self.documents.version(path),
                label=label,
                description=_first_line(change.reason) or label,
                encoding=self._encoding(),
                hunks=hunks,
            )
            return await self._send(change, hunks, edit, label, confirmable=True)

    # --- both modes -----------------------------------------------------------------------------

    async def _send(
        self,
        change: PreparedEdit,
        hunks: Sequence[Hunk],
        edit: types.WorkspaceEdit,
        label: str,
        *,
        confirmable: bool,
    ) -> Landed:
        """One applyEdit, then what landed: the text after it compared with the proposal.

        `confirmable`: the user may untick hunks in the editor (mode A), so `applied: true`
        alone says little. A plain edit (mode B) cannot land in part: when the editor has
        not synced the buffer yet (Emacs' eglot sends didChange only once idle), its
        `applied: true` stands.
        """
        path = Path(change.path)
        changed = self.documents.expect_change(path)
        wait = self.desk.answer_wait
        after_cancel = None
        if confirmable and self.on_dead is not None:
            on_dead = self.on_dead
            dead = DeadProposal(self.run_id, change, hunks, self.display_path(change.path))

            def after_cancel(answer: asyncio.Future[Any]) -> None:
                on_dead(dead, answer)

        try:
            response = await self.server.ask(
                types.WORKSPACE_APPLY_EDIT,
                types.ApplyWorkspaceEditParams(edit=edit, label=label),
                wait=wait,
                after_cancel=after_cancel,
            )
        except TimeoutError:
            reason = f"the editor did not answer within {wait:g} s; the request was withdrawn"
            log.warning("applyEdit of %s: %s", path, reason)
            return await self._unclear(change, hunks, changed, reason)
        except UnusableAnswerError as exc:  # logged where it was read
            return await self._unclear(change, hunks, changed, f"the editor's {exc}")
        except JsonRpcException as exc:  # eglot answers a "no" with an error
            return self._not_applied(change, str(exc) or "the editor refused the edit")
        if not response.applied:
            return self._not_applied(change, response.failure_reason)
        arrived = await self._change_arrived(path, changed, change.old_text)
        landed = self._current_text(path)
        if not confirmable and not arrived and (landed or "") == (change.old_text or ""):
            return Landed(status="applied", detail="the user accepted the edit; it was applied")
        outcome = reconcile(change.old_text, hunks, landed)
        # A reviewing client (the VS Code extension's inline review) passes the user's reason
        # for the hunks it dropped, though the edit landed in part.
        said = f" The user said: {response.failure_reason}" if response.failure_reason else ""
        return Landed(status=outcome.status, detail=outcome.detail + said)

    async def _unclear(
        self, change: PreparedEdit, hunks: Sequence[Hunk], changed: asyncio.Event, reason: str
    ) -> Landed:
        """No usable answer (none in time, or one that is no ApplyWorkspaceEditResult): the
        document decides. The edit counts as landed only as far as the text shows it did;
        an unchanged document is a rejection, and the model is told why."""
        path = Path(change.path)
        if await self._change_arrived(path, changed, change.old_text):
            outcome = reconcile(change.old_text, hunks, self._current_text(path))
            return Landed(status=outcome.status, detail=f"{outcome.detail} ({reason})")
        return Landed(status="rejected", detail=f"the edit was not applied: {reason}")

    def _not_applied(self, change: PreparedEdit, reason: str | None) -> Landed:
        """`applied: false` is the user's no, unless the document moved on meanwhile: editors
        refuse an edit for an older version (VS Code answers false without a reason)."""
        if self._current_text(Path(change.path)) != change.old_text:
            return Landed(
                status="stale",
                detail="stale: the document changed after the edit was proposed, so the editor "
                "did not apply it. Read the file again before proposing a new edit.",
            )
        if reason:
            return Landed(status="rejected", detail=f"the editor did not apply the edit: {reason}")
        return Landed(status="rejected", detail="the user rejected the edit")

    def _current_text(self, path: Path) -> str | None:
        try:
            return self.documents.read_text(path)
        except DocumentError:
            return None

    async def _change_arrived(
        self, path: Path, changed: asyncio.Event, old_text: str | None
    ) -> bool:
        """Whether the text moved away from `old_text` within the grace after an accepted edit.

        A notification alone is not enough: VS Code sends `didOpen` with the old text before
        the `didChange` that carries the edit, for files that were not open.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.desk.change_grace
        while True:
            try:
                await asyncio.wait_for(changed.wait(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                log.info("no change to %s after applyEdit; reading what is there", path)
                return False
            if self._current_text(path) != old_text:
                return True
            changed = self.documents.expect_change(path)

    def _encoding(self) -> str | None:
        """The position encoding pygls negotiated at initialize (None: UTF-16)."""
        encoding = self.server.workspace.position_encoding
        return None if encoding is None else str(getattr(encoding, "value", encoding))

    # --- mode B ---------------------------------------------------------------------------------

    async def _by_diagnostic(self, change: PreparedEdit) -> Decision:
        path = Path(change.path)
        hunks = compute_hunks(change.old_text or "", change.new_text)
        exists = change.old_text is not None
        uri = self.documents.uri_for(path) if exists else self.origin_uri
        diagnostic = pending_diagnostic(
            *await self._as_it_would_land(change, hunks),
            encoding=self._encoding(),
            new_file=not exists,
        )
        review = OpenReview(
            self.run_id,
            change,
            uri,
            diagnostic,
            display_path=self.display_path(change.path),
            verdict=asyncio.get_running_loop().create_future(),
        )
        self.desk.open[change.edit_id] = review
        self.desk.publish(uri)
        try:
            verdict = await review.verdict
            decision = await self._carry_out(change, hunks, verdict)
            review.answer_command(decision.status if isinstance(decision, Landed) else "rejected")
            return decision
        finally:
            review.answer_command(None)  # a no-op once answered: otherwise the review was withdrawn
            self.desk.open.pop(change.edit_id, None)
            self.desk.publish(uri)

    async def _as_it_would_land(
        self, change: PreparedEdit, hunks: Sequence[Hunk]
    ) -> tuple[PreparedEdit, Sequence[Hunk]]:
        """The edit re-based onto the document as it is now, for placing its diagnostic: an
        earlier edit of the same turn may have landed above it. Nothing is sent; the accept
        re-checks and re-bases again. A change that can no longer land is shown as proposed
        (accepting it reports why)."""
        current = await self.dispatch(change)
        if isinstance(current, PreparedEdit) and current is not change:
            return current, compute_hunks(current.old_text or "", current.new_text)
        return change, hunks

    async def _carry_out(
        self, change: PreparedEdit, hunks: Sequence[Hunk], verdict: Verdict
    ) -> Decision:
        """The user's verdict as a decision: a rejection, or the plain edit sent and what landed."""
        if verdict == "reject":
            return Reject(reason="the user rejected the edit in the editor")
        async with self.desk.apply_lock:
            sent = await self.dispatch(change)
            if not isinstance(sent, PreparedEdit):
                return _refused(sent)
            if sent is not change:  # rebased onto edits that landed since the proposal
                change, hunks = sent, compute_hunks(sent.old_text or "", sent.new_text)
            path = Path(change.path)
            edit = build_plain_edit(
                change,
                uri=self.documents.uri_for(path),
                version=self.documents.version(path),
                encoding=self._encoding(),
                hunks=hunks,
            )
            label = edit_label(change, self.display_path(change.path))
            return await self._send(change, hunks, edit, label, confirmable=False)

    # --- commands -------------------------------------------------------------------------------

    async def _ask_to_run(self, change: PreparedCommand) -> Decision:
        run, deny = types.MessageActionItem(title="Run"), types.MessageActionItem(title="Deny")
        request = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=f"rune wants to run: {change.command}\n(in {change.cwd})",
            actions=[run, deny],
        )
        try:
            answer = await self.server.ask(
                types.WINDOW_SHOW_MESSAGE_REQUEST, request, wait=self.request_timeout
            )
        except TimeoutError:
            return Reject(reason=f"no answer within {self.request_timeout:g} s; not run")
        except JsonRpcException as exc:
            return Reject(reason=f"the editor did not ask the user ({exc}); not run")
        if answer is None or answer.title != run.title:
            return Reject(reason="the user denied running this command")
        return Approve()


def _refused(refusal: PreparedChange | ToolOutcome) -> Decision:
    if not isinstance(refusal, ToolOutcome):  # an edit dispatched as a command: never sent
        return Landed(status="denied", detail="the change is not a file edit")
    status = "stale" if refusal.edit_status == "stale" else "denied"
    return Landed(status=status, detail=refusal.content)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _overlaps(a: types.Range, b: types.Range) -> bool:
    a_start, a_end = (a.start.line, a.start.character), (a.end.line, a.end.character)
    b_start, b_end = (b.start.line, b.start.character), (b.end.line, b.end.character)
    return a_start <= b_end and b_start <= a_end


__all__ = ["CHANGE_GRACE_SECONDS", "REVIEW_WAIT_SECONDS", "LspReviewer", "ReviewDesk"]
