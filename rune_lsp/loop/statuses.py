"""Every status a call and a proposed change can have, and every mapping between them.

A change's verdict travels four steps, each with its own type, and each step's mapping is here:

1. what the text after an applyEdit shows: `ReconcileStatus` (review/reconcile.py);
2. the front end's verdict to the loop: `LandedStatus` (in `Landed`): one of those, or `denied`
   when the rules refused the change as it was about to be sent;
3. the call's result the model reads: a `CallStatus` (in `ToolOutcome`), `reported`;
4. the run result's record: `EditStatus` (in `EditRecord`), `recorded`.

So "a denied change is recorded as rejected" is decided once, by `recorded`, for a change that
ends normally, at a cancel, and when refused by its re-check (`recheck`) alike. It imports
nothing of rune_lsp, so every layer can import it (the loop's own types in loop/state.py and
loop/records.py too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

#: A call's result (docs/interface.md#run-result, `toolCalls[].status`).
ToolStatus = Literal["ok", "failed", "denied", "skipped"]
#: An edit in the run result (`edits[].status`); `pending`: the run ended before it was decided.
EditStatus = Literal["applied", "partial", "rejected", "stale", "pending"]
#: What landed after the editor answered an applyEdit, judged from the document's text.
ReconcileStatus = Literal["applied", "partial", "rejected", "stale"]
#: A front end's verdict on a change it sent (or refused to send) itself, and the status
#: `rune.acceptEdit` answers: what landed, or `denied` by the rules at the last check.
LandedStatus = Literal[ReconcileStatus, "denied"]

#: The call statuses that are failures (the breaker counts them).
FAILURES: frozenset[ToolStatus] = frozenset(("failed", "denied"))
#: The edit statuses of a change that reached the file (in whole or in part).
LANDED: frozenset[EditStatus] = frozenset(("applied", "partial"))
#: Edit statuses in the order a summary lists them.
EDIT_STATUSES: tuple[EditStatus, ...] = get_args(EditStatus)

#: The detail of an edit its run ended on before the user decided, no pause kept for
#: `rune.resume` (runner/driver.py): its status stays `pending`; nobody can decide it now.
WITHDRAWN = "withdrawn: the run ended before the user decided; nothing was applied"
#: How the detail of an edit the user undid in the editor starts (server/undo.py marks it; the
#: status stays what landed, docs/interface.md#run-result).
UNDONE = (
    "undone by the user in the editor (Ctrl+Z): the file is back to its text before this edit. "
)


@dataclass(frozen=True, slots=True)
class CallStatus:
    """What a call's result says: its own status, and for a change the edit's."""

    tool: ToolStatus
    edit: EditStatus | None = None


_REPORTED: dict[LandedStatus, CallStatus] = {
    "applied": CallStatus("ok", "applied"),
    "partial": CallStatus("ok", "partial"),
    # The user's no: not a tool failure (the breaker leaves it alone, the user is not told).
    "rejected": CallStatus("denied", "rejected"),
    # No edit status: a rule refusing the change is a tool failure the breaker counts and the
    # user is told about, not the user's choice.
    "denied": CallStatus("denied"),
    "stale": CallStatus("failed", "stale"),
}


def reported(verdict: LandedStatus) -> CallStatus:
    """A front end's verdict as the call's result tells it to the model."""
    return _REPORTED[verdict]


def recorded(call: CallStatus) -> EditStatus:
    """The edit's status in the run result once its call was answered: its own edit status,
    else (refused without a finer status: rules changed, an executor error) applied for `ok`
    and rejected (not applied) for anything else."""
    if call.edit is not None and call.edit != "pending":
        return call.edit
    return "applied" if call.tool == "ok" else "rejected"


def recorded_verdict(verdict: LandedStatus) -> EditStatus:
    """A front end's verdict as the run result records it (`denied` is recorded as rejected)."""
    return recorded(reported(verdict))


#: A change the rules refused when the executor re-checked it right before applying or sending
#: it: denied, and the edit recorded as a denied verdict is.
REFUSED_AT_RECHECK = CallStatus("denied", recorded_verdict("denied"))


def recheck_verdict(refusal: CallStatus) -> LandedStatus:
    """The verdict on a change its re-check refused: stale when its target moved on, else
    denied by the rules."""
    return "stale" if refusal.edit == "stale" else "denied"


def told_to_user(call: CallStatus) -> bool:
    """A refusal by the rules (denied without an edit status), which the editor also shows;
    the user's own rejections carry one and are not repeated back to them."""
    return call.tool == "denied" and call.edit is None


def counts_for_breaker(call: CallStatus) -> bool | None:
    """True for a failure, False for a success, None for results that leave a streak alone
    (a skipped call, the user's rejection)."""
    if call.tool == "skipped" or call.edit == "rejected":
        return None
    return call.tool in FAILURES
