"""Server-wide review state: the mode-A lock and the open mode-B reviews, hunk by hunk.

An open review holds a `HunkReview` and is the one place its hunks are shown from: the
diagnostics, the code actions, the inlay hints and the code lenses are all built from it as it
is now. Commands replace its state; so does every change of its document (the hunks follow the
user's typing). Once every hunk is resolved the waiting reviewer lands what was accepted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from lsprotocol import types

from rune_lsp.loop.state import PreparedEdit
from rune_lsp.loop.statuses import LandedStatus
from rune_lsp.review import hunk_diagnostics, review_code_actions, unified_diff
from rune_lsp.review.hunk_review import HunkReview, Verdict
from rune_lsp.review.inline import code_lenses, inlay_hints
from rune_lsp.server.app import RuneServer
from rune_lsp.server.documents import LspDocuments
from rune_lsp.tools.errors import DocumentError

log = logging.getLogger(__name__)

#: A whole-edit verdict given by the document rather than the user (every hunk went stale
#: under the typing) is kept this long, so an accept that was already on its way is answered
#: with what happened instead of "no pending edit".
SETTLED_KEEP = 32


@dataclass
class OpenReview:
    """A mode-B edit waiting for the user, hunk by hunk."""

    run_id: str
    change: PreparedEdit
    uri: str
    display_path: str
    state: HunkReview
    # Set once every hunk is resolved: the reviewer then lands what was accepted.
    decided: asyncio.Event = field(default_factory=asyncio.Event)
    # While its own applyEdit is on the way, the document's change is that edit landing.
    landing: bool = False
    # Every hunk was decided by the document (gone stale under the typing), not by a command.
    by_document: bool = False
    diagnostics: list[types.Diagnostic] = field(default_factory=list)
    # The edit's final status for the commands; None: withdrawn (the run ended).
    settled: asyncio.Future[LandedStatus | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    def settle(self, status: LandedStatus | None) -> None:
        if not self.settled.done():
            self.settled.set_result(status)

    def update(self, state: HunkReview) -> None:
        self.state = state
        if state.done:
            self.decided.set()


class ReviewDesk:
    def __init__(
        self,
        server: RuneServer,
        documents: LspDocuments,
        change_grace: float,
        answer_wait: float,
    ) -> None:
        self.server = server
        self.documents = documents
        self.change_grace = change_grace
        self.answer_wait = answer_wait
        # VS Code discards an open refactor preview when another applyEdit arrives.
        self.apply_lock = asyncio.Lock()
        self.open: dict[str, OpenReview] = {}
        self._settled: dict[str, LandedStatus] = {}

    # --- opening and closing --------------------------------------------------------------

    def add(self, review: OpenReview) -> None:
        self.open[review.change.edit_id] = review
        self._follow(review)
        self.publish(review.uri)

    def close(self, review: OpenReview, status: LandedStatus | None) -> None:
        review.settle(status)
        self.open.pop(review.change.edit_id, None)
        self.publish(review.uri)

    def remember(self, edit_id: str, status: LandedStatus) -> None:
        """An edit the document decided (all of it went stale): a late command learns that."""
        self._settled[edit_id] = status
        while len(self._settled) > SETTLED_KEEP:
            self._settled.pop(next(iter(self._settled)))

    def withdraw(self, run_id: str) -> None:
        """Take a run's open reviews away: diagnostics cleared, pending commands answered."""
        for review in [r for r in self.open.values() if r.run_id == run_id]:
            self.close(review, None)

    # --- commands ---------------------------------------------------------------------------

    async def resolve(
        self, edit_id: str, verdict: Verdict, reason: str = ""
    ) -> LandedStatus | None:
        """Every hunk still pending decided at once; the edit's status once it landed (None:
        its run ended before it could land). Raises KeyError for an edit that is not open."""
        review = self._review(edit_id)
        if review is None:
            return self._settled[edit_id]
        if not review.landing:
            review.update(review.state.resolve_rest(verdict, reason=reason))
        return await asyncio.shield(review.settled)

    async def resolve_hunk(
        self,
        edit_id: str,
        hunk_id: int,
        verdict: Verdict,
        *,
        lines: Sequence[int] | None = None,
        reason: str = "",
    ) -> LandedStatus | Literal["pending"] | None:
        """One hunk decided: `pending` while others wait, else the edit's final status.
        Raises KeyError, UnknownHunkError or LineSelectionError."""
        review = self._review(edit_id)
        if review is None:
            return self._settled[edit_id]
        if review.landing or review.state.done:  # decided already: on its way to the editor
            return await asyncio.shield(review.settled)
        review.update(review.state.resolve(hunk_id, verdict, lines=lines, reason=reason))
        if not review.state.done:
            self.publish(review.uri)
            return "pending"
        return await asyncio.shield(review.settled)

    def diff_of(self, edit_id: str) -> str:
        review = self.open[edit_id]
        return unified_diff(review.change, display_path=review.display_path)

    def _review(self, edit_id: str) -> OpenReview | None:
        review = self.open.get(edit_id)
        if review is None and edit_id not in self._settled:
            raise KeyError(edit_id)
        return review

    # --- the document moves -----------------------------------------------------------------

    def follow(self, uri: str) -> None:
        """The document at `uri` changed: its open reviews follow it (hunks move, or go
        stale where the change came near them), and what is shown is re-published."""
        moved = False
        for review in list(self.open.values()):
            if review.uri == uri and not review.landing:
                moved = self._follow(review) or moved
        if moved:
            self.publish(uri)

    def _follow(self, review: OpenReview) -> bool:
        if review.change.old_text is None:  # a new file: its diagnostic only sits on `uri`
            return False
        try:
            text = self.documents.read_text(Path(review.change.path))
        except DocumentError:
            text = None
        state = review.state.follow(text)
        if state is review.state:
            return False
        newly = sorted(set(state.stale) - set(review.state.stale))
        if newly:
            numbers = ", ".join(str(index + 1) for index in newly)
            log.info("edit %s: hunks %s went stale under typing", review.change.edit_id, numbers)
        review.by_document = state.done and not review.state.done
        shown_before = _shown(review.state)
        review.update(state)
        # Typing below the hunks, or beside them on the same lines, moves nothing that is shown.
        return _shown(state) != shown_before

    # --- what is shown ----------------------------------------------------------------------

    def publish(self, uri: str) -> None:
        diagnostics: list[types.Diagnostic] = []
        for review in self._on(uri):
            review.diagnostics = self._diagnostics(review)
            diagnostics.extend(review.diagnostics)
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )
        self.server.refresh_inline()

    def _diagnostics(self, review: OpenReview) -> list[types.Diagnostic]:
        if review.landing or review.state.done:
            return []
        exists = review.change.old_text is not None
        return hunk_diagnostics(
            review.change,
            review.state.pending,
            total=len(review.state.proposed),
            text=review.state.base,
            encoding=self.server.encoding,
            new_file=not exists,
        )

    def code_actions(self, uri: str, range_: types.Range) -> list[types.CodeAction]:
        actions: list[types.CodeAction] = []
        for review in self._on(uri):
            for diagnostic in review.diagnostics:
                if _overlaps(diagnostic.range, range_):
                    hunk_id = (
                        diagnostic.data["hunkId"] if isinstance(diagnostic.data, dict) else None
                    )
                    actions.extend(review_code_actions(review.change.edit_id, diagnostic, hunk_id))
        return actions

    def inlay_hints(self, uri: str, range_: types.Range) -> list[types.InlayHint]:
        hints: list[types.InlayHint] = []
        for review in self._on(uri):
            if review.change.old_text is None or review.landing:
                continue
            for hunk in review.state.pending:
                if range_.start.line <= hunk.old_end and hunk.old_start <= range_.end.line + 1:
                    hints.extend(inlay_hints(hunk, review.state.base, self.server.encoding))
        return hints

    def code_lenses(self, uri: str) -> list[types.CodeLens]:
        lenses: list[types.CodeLens] = []
        for review in self._on(uri):
            if review.landing:
                continue
            text = review.state.base if review.change.old_text is not None else ""
            for hunk in review.state.pending:
                lenses.extend(code_lenses(review.change.edit_id, hunk, text, self.server.encoding))
        return lenses

    def _on(self, uri: str) -> list[OpenReview]:
        return [review for review in self.open.values() if review.uri == uri]


def _shown(state: HunkReview) -> tuple[tuple[int, int, int], ...]:
    """What the diagnostics, hints and lenses of a review depend on: its pending hunks' lines."""
    return tuple((hunk.index, hunk.old_start, hunk.old_end) for hunk in state.pending)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    a_start, a_end = (a.start.line, a.start.character), (a.end.line, a.end.character)
    b_start, b_end = (b.start.line, b.start.character), (b.end.line, b.end.character)
    return a_start <= b_end and b_start <= a_end


__all__ = ["OpenReview", "ReviewDesk"]
