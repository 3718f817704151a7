"""What the model is told about a reviewed change, and what the run result records.

`Approve` is handled by the executor (it re-checks the rules and applies); `Reject` and `Landed`
(the editor applied or refused the change itself) are turned into results here.
"""

from __future__ import annotations

from rune_lsp.loop.records import EditRecord
from rune_lsp.loop.state import Decision, Landed, PreparedChange, PreparedEdit, Reject, ToolOutcome
from rune_lsp.loop.statuses import CallStatus, recorded, reported
from rune_lsp.text_clip import shorten

#: EditRecord.detail is a short note for the run result, not the model's full result.
MAX_DETAIL = 300
#: EditRecord.reason: the user's words, as long as the editor lets them be (commands.py).
MAX_REASON = 2000


def target_of(change: PreparedChange) -> str:
    """The file for edits (absolute: the front end relativises), the command for commands."""
    return change.path if isinstance(change, PreparedEdit) else change.command


def pending_record(change: PreparedChange) -> EditRecord:
    return EditRecord(
        edit_id=change.edit_id, tool=change.tool, path=target_of(change), status="pending"
    )


def rejected_outcome(reject: Reject) -> ToolOutcome:
    reason = reject.reason.strip() or "no reason given"
    return _outcome(reported("rejected"), f"The user rejected this change: {reason}")


def landed_outcome(change: PreparedChange, landed: Landed) -> ToolOutcome:
    """What the model reads of a change the front end sent (or refused to send) itself; its
    statuses are `statuses.reported`'s."""
    target = target_of(change)
    detail = landed.detail.strip()
    if landed.status == "rejected":
        return rejected_outcome(Reject(reason=detail))
    if landed.status == "applied":
        content = f"The user accepted the change to {target}; it was applied."
    elif landed.status == "partial":
        content = (
            f"The user accepted only part of the change to {target}; the rest was not applied."
        )
    elif landed.status == "denied":
        content = f"The change to {target} was refused when re-checked right before it was sent."
    else:
        content = (
            f"The change was not applied: {target} changed after it was proposed, so the "
            "proposal no longer matches the document. Read it again and propose the change on "
            "the new text if it is still needed."
        )
    return _outcome(reported(landed.status), _with(content, detail))


def _outcome(call: CallStatus, content: str) -> ToolOutcome:
    return ToolOutcome(status=call.tool, content=content, edit_status=call.edit)


def final_record(
    change: PreparedChange,
    outcome: ToolOutcome,
    detail: str = "",
    decision: Decision | None = None,
) -> EditRecord:
    """The edit's entry in the run result; `decision` adds the user's reason and, for an edit
    decided hunk by hunk, each hunk's fate."""
    reason = decision.reason.strip() if isinstance(decision, Reject | Landed) else ""
    hunks = decision.hunks if isinstance(decision, Landed) else ()
    return EditRecord(
        edit_id=change.edit_id,
        tool=change.tool,
        path=target_of(change),
        status=recorded(outcome.call_status),
        detail=shorten(detail or ("" if outcome.status == "ok" else outcome.content), MAX_DETAIL),
        reason=shorten(reason, MAX_REASON) if reason else None,
        hunks=hunks or None,
    )


def _with(content: str, detail: str) -> str:
    return f"{content} {detail}" if detail else content
