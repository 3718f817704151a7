"""What an edit the editor did not apply means for it (docs/interface.md#review-modes).

`workspace/applyEdit` answered `applied: false` (or with an error) is the user's no, unless
the document moved on while the edit was out: typing over a hunk makes the edit `stale`;
typing elsewhere makes it `MovedOn`, to be sent again rebased (server/review.py bounds how
often). This module owns that decision; server/review.py sends and waits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rune_lsp.loop.state import Landed, PreparedChange, PreparedEdit, ToolOutcome
from rune_lsp.loop.statuses import recheck_verdict
from rune_lsp.review import Hunk, Reconciliation
from rune_lsp.review.reconcile import typed_over_verdict


@dataclass(frozen=True, slots=True)
class MovedOn:
    """The editor refused an edit only because the document changed elsewhere meanwhile: it
    still fits the new text once rebased (tools/rebase.py), so it is sent again."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """One `applied: false` (or error) answer and the document around it."""

    change: PreparedEdit  # as sent: `old_text` is the text the edit was built on
    hunks: Sequence[Hunk]
    reason: str | None  # the answer's failureReason, or the error's message
    current: str | None  # the document's text now
    version_moved: bool  # open when the edit went out, the document has a newer version now
    answered: bool = True  # False: an error answer (eglot's no), not `applied: false`


def not_applied(refusal: Refusal) -> Landed | MovedOn:
    """`applied: false` is the user's no, unless the document moved on meanwhile.

    The document moved when its text or its version did: typing undone before the answer
    leaves the text as the edit was built on but the version newer, and VS Code refuses an
    edit for an older version all the same (vscode-languageclient compares each
    `textDocument.version`), with no reason, as after any typing elsewhere.
    Typing that came near a hunk makes the edit `stale` whatever the answer says (the VS Code
    extension's inline review answers "the user rejected it" when the user typed inside the
    only hunk; mode B calls the same typing stale: review/hunk_review.py). Typing elsewhere:
    `MovedOn` when the editor gave no reason; a no answered with a reason is the user's,
    though they typed elsewhere meanwhile (the inline review always gives one).
    """
    change, reason, current = refusal.change, refusal.reason, refusal.current
    said = reason if refusal.answered else None
    if current != change.old_text:
        typed_over = typed_over_verdict(change, refusal.hunks, current)
        if typed_over is not None:
            words = f" The user said: {said}" if said else ""
            return as_landed(typed_over).model_copy(update={"detail": typed_over.detail + words})
    if (current != change.old_text or refusal.version_moved) and not said:
        return MovedOn()
    if reason:
        return Landed(
            status="rejected",
            detail=f"the editor did not apply the edit: {reason}",
            reason=reason,
        )
    return Landed(status="rejected", detail="the user rejected the edit")


def moved_on() -> Landed:
    """The verdict once an edit is not sent again (mode B, or mode A's resends used up)."""
    return Landed(
        status="stale",
        detail="stale: the document changed after the edit was proposed, so the editor "
        "did not apply it. Read the file again before proposing a new edit.",
    )


def refused(refusal: PreparedChange | ToolOutcome) -> Landed:
    """The tools' re-check refused the change right before it was sent."""
    if not isinstance(refusal, ToolOutcome):  # an edit rechecked as a command: never sent
        return Landed(status="denied", detail="the change is not a file edit")
    return Landed(status=recheck_verdict(refusal.call_status), detail=refusal.content)


def as_landed(outcome: Reconciliation) -> Landed:
    return Landed(
        status=outcome.status,
        detail=outcome.detail,
        reason=outcome.reason(),
        hunks=outcome.hunk_records(),
    )


__all__ = ["MovedOn", "Refusal", "as_landed", "moved_on", "not_applied", "refused"]
