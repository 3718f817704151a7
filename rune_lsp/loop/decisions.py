"""What the model is told about a reviewed change, and what the run result records.

`Approve` is handled by the executor (it re-checks the rules and applies); `Reject` and `Landed`
(the editor applied or refused the change itself) are turned into results here.
"""

from __future__ import annotations

from rune_lsp.loop.state import (
    EditRecord,
    EditStatus,
    Landed,
    PreparedChange,
    PreparedEdit,
    Reject,
    ToolOutcome,
)

#: EditRecord.detail is a short note for the run result, not the model's full result.
MAX_DETAIL = 300


def target_of(change: PreparedChange) -> str:
    """The file for edits (absolute: the front end relativises), the command for commands."""
    return change.path if isinstance(change, PreparedEdit) else change.command


def pending_record(change: PreparedChange) -> EditRecord:
    return EditRecord(
        edit_id=change.edit_id, tool=change.tool, path=target_of(change), status="pending"
    )


def rejected_outcome(reject: Reject) -> ToolOutcome:
    reason = reject.reason.strip() or "no reason given"
    return ToolOutcome(
        status="denied",
        content=f"The user rejected this change: {reason}",
        edit_status="rejected",
    )


def landed_outcome(change: PreparedChange, landed: Landed) -> ToolOutcome:
    target = target_of(change)
    detail = landed.detail.strip()
    if landed.status == "applied":
        content = f"The user accepted the change to {target}; it was applied."
        return ToolOutcome(status="ok", content=_with(content, detail), edit_status="applied")
    if landed.status == "partial":
        content = (
            f"The user accepted only part of the change to {target}; the rest was not applied."
        )
        return ToolOutcome(status="ok", content=_with(content, detail), edit_status="partial")
    if landed.status == "rejected":
        return rejected_outcome(Reject(reason=detail))
    if landed.status == "denied":
        # No edit_status: a rule refusing the change is a tool failure (the breaker counts it),
        # not the user's choice; the edit is recorded as not applied.
        content = f"The change to {target} was refused when re-checked right before it was sent."
        return ToolOutcome(status="denied", content=_with(content, detail))
    content = (
        f"The change was not applied: {target} changed after it was proposed, so the proposal "
        "no longer matches the document. Read it again and propose the change on the new text "
        "if it is still needed."
    )
    return ToolOutcome(status="failed", content=_with(content, detail), edit_status="stale")


def final_record(change: PreparedChange, outcome: ToolOutcome, detail: str = "") -> EditRecord:
    return EditRecord(
        edit_id=change.edit_id,
        tool=change.tool,
        path=target_of(change),
        status=final_status(outcome),
        detail=_clip(detail or ("" if outcome.status == "ok" else outcome.content)),
    )


def final_status(outcome: ToolOutcome) -> EditStatus:
    if outcome.edit_status is not None and outcome.edit_status != "pending":
        return outcome.edit_status
    # Refused when re-checked, without a finer status (rules changed, executor error): not applied.
    return "applied" if outcome.status == "ok" else "rejected"


def _with(content: str, detail: str) -> str:
    return f"{content} {detail}" if detail else content


def _clip(text: str) -> str:
    return text if len(text) <= MAX_DETAIL else text[: MAX_DETAIL - 3] + "..."
