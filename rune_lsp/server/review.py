"""Per-edit review in the editor (docs/interface.md#review-modes).

Mode A, clients with change-annotation support (VS Code): one `workspace/applyEdit` per pending
edit, never two at once, reconciled afterwards against what actually landed. Mode B, any other
client: every pending edit is shown at once, one Information diagnostic per hunk (server/desk.py
holds them), resolved hunk by hunk or as a whole, and only accepted hunks are sent, in one plain
`workspace/applyEdit` once every hunk of the edit is decided. Commands ask with
`window/showMessageRequest`. Every path re-checks the rules right before anything is sent (the
tools' `recheck`), and an edit the editor did not apply to the text it was proposed on is
`stale`, never `rejected`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from rune_lsp.loop.state import (
    Decision,
    Landed,
    PreparedChange,
    PreparedCommand,
    PreparedEdit,
    RunState,
    ToolOutcome,
)
from rune_lsp.loop.statuses import LandedStatus
from rune_lsp.review import (
    Hunk,
    Reconciliation,
    build_annotated_edit,
    build_plain_edit,
    compute_hunks,
    edit_label,
    landed_diff,
    reconcile,
)
from rune_lsp.review.hunk_review import HunkReview
from rune_lsp.server.app import RuneServer
from rune_lsp.server.approval import ask_to_run
from rune_lsp.server.desk import OpenReview, ReviewDesk
from rune_lsp.server.documents import LspDocuments, TextLog
from rune_lsp.server.late import DeadProposal
from rune_lsp.server.protocol import UnusableAnswerError
from rune_lsp.server.refusals import (
    MovedOn,
    Refusal,
    as_landed,
    moved_on,
    not_applied,
    refused,
)
from rune_lsp.server.undo import Undos, landing_of
from rune_lsp.text_clip import first_line
from rune_lsp.tools.errors import DocumentError

log = logging.getLogger(__name__)

#: How long to wait for the `didChange` that follows an accepted applyEdit by default.
CHANGE_GRACE_SECONDS = 2.0
#: How long to wait for the editor's answer to an applyEdit by default: in VS Code that is the
#: user reading the refactor preview, so it is generous; but never for ever, since the review
#: lock is server-wide and every other review waits behind it (`RUNE_REVIEW_WAIT`).
REVIEW_WAIT_SECONDS = 600.0
#: How often one proposal is shown in a Refactor Preview while the user keeps typing
#: elsewhere (each time the editor refuses it for an older version): bounded, then `stale`.
PREVIEW_RESENDS = 3

#: The tools' re-check right before a change is sent (`ToolExecutor.recheck`): the change to send
#: (rebased onto the current text when another edit landed meanwhile) or the refusal.
Recheck = Callable[[PreparedChange], Awaitable[PreparedChange | ToolOutcome]]
#: What the text after an applyEdit means for the edit (mode B names its hunks' fates).
Judge = Callable[[Reconciliation], Landed]


@dataclass
class LspReviewer:
    """Decides the pending changes of one run through the editor."""

    desk: ReviewDesk
    run_id: str
    origin_uri: str
    recheck: Recheck
    request_timeout: float
    display_path: Callable[[str], str]
    #: Gets a mode-A proposal whose applyEdit was still open when the run died, with the
    #: answer still to come (server/late.py records what lands).
    on_dead: Callable[[DeadProposal, asyncio.Future[Any]], None] | None = None
    #: Watches what landed for the user's undo (server/undo.py).
    undos: Undos | None = None
    #: The run's state, from the first decision on: an undo is told to the model through it.
    _state: RunState | None = None

    @property
    def server(self) -> RuneServer:
        return self.desk.server

    @property
    def documents(self) -> LspDocuments:
        return self.desk.documents

    async def decide(self, change: PreparedChange, state: RunState) -> Decision:
        self._state = state
        if isinstance(change, PreparedCommand):
            return await ask_to_run(self.server, change, self.request_timeout, run_id=self.run_id)
        if self.server.annotation_support:
            return await self._preview(change)
        return await self._by_diagnostic(change)

    async def withdraw(self) -> None:
        self.desk.withdraw(self.run_id)

    # --- mode A ---------------------------------------------------------------------------------

    async def _preview(self, change: PreparedEdit) -> Decision:
        """One Refactor Preview; sent again, rebased on the new text, while the editor refuses
        it only because the user typed elsewhere meanwhile (no model turn is spent on that)."""
        async with self.desk.apply_lock:
            for _ in range(PREVIEW_RESENDS):
                sent = await self.recheck(change)
                if not isinstance(sent, PreparedEdit):
                    return refused(sent)
                path = Path(sent.path)
                hunks = compute_hunks(sent.old_text or "", sent.new_text)
                label = edit_label(sent, self.display_path(sent.path))
                edit = build_annotated_edit(
                    sent,
                    uri=self.documents.uri_for(path),
                    version=self.documents.version(path),
                    label=label,
                    description=first_line(change.reason) or label,
                    encoding=self._encoding(),
                    hunks=hunks,
                )
                landed = await self._send(sent, hunks, edit, label, confirmable=True)
                if isinstance(landed, Landed):
                    return landed
                log.info("preview of %s refused after typing elsewhere: sent again", path)
            return moved_on()

    # --- both modes -----------------------------------------------------------------------------

    async def _send(
        self,
        change: PreparedEdit,
        hunks: Sequence[Hunk],
        edit: types.WorkspaceEdit,
        label: str,
        *,
        confirmable: bool,
        judge: Judge | None = None,
    ) -> Landed | MovedOn:
        """One applyEdit, then what landed: the text after it compared with the proposal.

        `confirmable`: the user may untick hunks in the editor (mode A), so `applied: true`
        alone says little. A plain edit (mode B) cannot land in part: when the editor has
        not synced the buffer yet (Emacs' eglot sends didChange only once idle), its
        `applied: true` stands. A refusal caused only by typing elsewhere is `MovedOn`
        (mode A sends the edit again; mode B reports it stale).
        """
        judge = judge or as_landed
        path = Path(change.path)
        changed = self.documents.expect_change(path)
        wait = self.desk.answer_wait
        after_cancel = None
        if confirmable and self.on_dead is not None:
            on_dead = self.on_dead
            dead = DeadProposal(self.run_id, change, hunks, self.display_path(change.path))

            def after_cancel(answer: asyncio.Future[Any]) -> None:
                on_dead(dead, answer)

        sent_text = self._current_text(path)
        sent_version = self.documents.version(path)  # the version `edit` names (built just now)
        watching = self.undos.sending(path) if self.undos is not None else nullcontext(None)
        with self.documents.recording(path) as typed, watching as landed_on:
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
                return await self._unclear(change, hunks, changed, reason, judge)
            except UnusableAnswerError as exc:  # logged where it was read
                return await self._unclear(change, hunks, changed, f"the editor's {exc}", judge)
            except JsonRpcException as exc:  # eglot answers a "no" with an error
                reason = str(exc) or "the editor refused the edit"
                return self._not_applied(change, hunks, reason, sent_version, answered=False)
            if not response.applied:
                return self._not_applied(change, hunks, response.failure_reason, sent_version)
            if confirmable:
                verdict = judge(await self._what_landed(change, hunks, typed))
            else:
                arrived = await self._change_arrived(path, changed, change.old_text)
                landed = self._current_text(path)
                if not arrived and (landed or "") == (change.old_text or ""):
                    everything = tuple(hunk.index for hunk in hunks)
                    detail = "the user accepted the edit; it was applied"
                    return judge(
                        Reconciliation("applied", kept=everything, dropped=(), detail=detail)
                    )
                verdict = judge(reconcile(change.old_text, hunks, landed))
            if verdict.status == "partial":  # the receipt shows what landed, not the proposal
                verdict = verdict.model_copy(
                    update={"diff": landed_diff(change, sent_text, self._current_text(path))}
                )
            if landed_on is not None and verdict.status in ("applied", "partial"):
                landing = landing_of(
                    self.run_id,
                    change.edit_id,
                    path if self.documents.is_open(path) else None,
                    self.display_path(change.path),
                    texts=[sent_text, *typed.texts],
                    after=self._current_text(path),
                    state=self._state,
                )
                if landing is not None:
                    landed_on(landing)
        if not response.failure_reason:
            return verdict
        # A reviewing client (the VS Code extension's inline review) passes the user's reason
        # for the hunks it dropped, though the edit landed in part.
        said = response.failure_reason
        return verdict.model_copy(
            update={"detail": f"{verdict.detail} The user said: {said}", "reason": said}
        )

    async def _what_landed(
        self, change: PreparedEdit, hunks: Sequence[Hunk], typed: TextLog
    ) -> Reconciliation:
        """After `applied: true` on a confirmable edit: the document compared with the
        proposal once the landing shows in it (its didChange may come after the answer, and
        the user's typing during the review already changed the text before it). An
        `edit_file`'s hunks follow that typing; a `write_file` states the whole file."""
        path = Path(change.path)
        follows = change.tool == "edit_file"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.desk.change_grace
        while True:
            typed.changed.clear()
            texts = typed.texts if follows else ()
            outcome = reconcile(change.old_text, hunks, self._current_text(path), typed=texts)
            if outcome.kept:
                return outcome
            try:
                await asyncio.wait_for(typed.changed.wait(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                log.info("nothing of the edit in %s after applyEdit; reading what is there", path)
                return outcome

    async def _unclear(
        self,
        change: PreparedEdit,
        hunks: Sequence[Hunk],
        changed: asyncio.Event,
        reason: str,
        judge: Judge,
    ) -> Landed:
        """No usable answer (none in time, or one that is no ApplyWorkspaceEditResult): the
        document decides. The edit counts as landed only as far as the text shows it did;
        an unchanged document is a rejection, and the model is told why."""
        path = Path(change.path)
        if await self._change_arrived(path, changed, change.old_text):
            landed = judge(reconcile(change.old_text, hunks, self._current_text(path)))
            return landed.model_copy(update={"detail": f"{landed.detail} ({reason})"})
        return Landed(status="rejected", detail=f"the edit was not applied: {reason}")

    def _not_applied(
        self,
        change: PreparedEdit,
        hunks: Sequence[Hunk],
        reason: str | None,
        sent_version: int | None,
        *,
        answered: bool = True,
    ) -> Landed | MovedOn:
        path = Path(change.path)
        current = self._current_text(path)
        # Only an open document's version moves: VS Code opening one for its preview is no typing.
        moved = sent_version is not None and self.documents.version(path) != sent_version
        return not_applied(Refusal(change, hunks, reason, current, moved, answered))

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
        return self.server.encoding

    # --- mode B ---------------------------------------------------------------------------------

    async def _by_diagnostic(self, change: PreparedEdit) -> Decision:
        exists = change.old_text is not None
        review = OpenReview(
            self.run_id,
            change,
            self.documents.uri_for(Path(change.path)) if exists else self.origin_uri,
            display_path=self.display_path(change.path),
            state=HunkReview.start(
                change.old_text, change.new_text, follows=change.tool == "edit_file" and exists
            ),
        )
        self.desk.add(review)  # placed on the text as it is now: an earlier edit may have landed
        status: LandedStatus | None = None
        try:
            await review.decided.wait()
            decision = await self._land(review)
            status = decision.status
            if review.by_document:
                self.desk.remember(change.edit_id, status)
            return decision
        finally:
            self.desk.close(review, status)  # status None: withdrawn, the run ended

    async def _land(self, review: OpenReview) -> Landed:
        """What the user accepted, in one plain applyEdit; nothing is sent when nothing was."""
        change = review.change
        if not review.state.chosen():
            return _nothing_landed(review.state)
        async with self.desk.apply_lock:
            # From here the document's changes are this edit landing. Until here the hunks
            # kept following the typing (and another edit landing), which may have made the
            # accepted ones stale.
            review.landing = True
            state = review.state
            if not state.chosen():
                return _nothing_landed(state)
            proposal = change.model_copy(
                update={
                    "old_text": state.base if change.old_text is not None else None,
                    "new_text": state.result_text(),
                }
            )
            sent = await self.recheck(proposal)
            if not isinstance(sent, PreparedEdit):
                return refused(sent)
            if sent is not proposal:  # the disk moved under a file that is not open
                state = state.follow(sent.old_text)
                if not state.chosen():
                    return _nothing_landed(state)
                proposal = sent.model_copy(update={"new_text": state.result_text()})
            hunks = state.chosen()
            path = Path(change.path)
            edit = build_plain_edit(
                proposal,
                uri=self.documents.uri_for(path),
                version=self.documents.version(path),
                encoding=self._encoding(),
                hunks=hunks,
            )
            label = edit_label(change, self.display_path(change.path))

            def judge(outcome: Reconciliation) -> Landed:
                if outcome.status != "applied":  # the editor did something else
                    return as_landed(outcome)
                return as_landed(state.verdict(landed=True))

            landed = await self._send(proposal, hunks, edit, label, confirmable=False, judge=judge)
            return landed if isinstance(landed, Landed) else moved_on()


def _nothing_landed(state: HunkReview) -> Landed:
    return as_landed(state.verdict(landed=False))


__all__ = ["CHANGE_GRACE_SECONDS", "REVIEW_WAIT_SECONDS", "LspReviewer"]
