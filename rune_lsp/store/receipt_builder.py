"""Building a receipt from a finished run: every string scrubbed of secrets, the whole bounded.

Whatever the run read, a receipt stays under `MAX_RECEIPT_BYTES`: each free-text field is
clipped to its cap, then the longest fields until the whole fits, and the receipt's notes say
what was shortened.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from rune_lsp.loop.records import RunResult
from rune_lsp.loop.state import RunState
from rune_lsp.store.bounds import Slot, fit_budget
from rune_lsp.store.receipt import CheckRecord, Receipt, ReceiptCall, ReceiptEdit, ReceiptTurn
from rune_lsp.store.scrub import Scrubber
from rune_lsp.text_clip import Keep, clip

log = logging.getLogger(__name__)

#: Whole receipt, as written (indented JSON, UTF-8).
MAX_RECEIPT_BYTES = 256 * 1024
#: Room kept for the notes that explain what was shortened.
_NOTES_RESERVE = 8 * 1024
_MAX_NOTES = 20

# Per-field caps, in characters, applied before the whole-receipt budget.
ANSWER_CAP = 32_000
ERROR_CAP = 4_000
TASK_CAP = 4_000
ARGUMENTS_CAP = 2_000
DIGEST_CAP = 2_000
DETAIL_CAP = 1_000
PATH_CAP = 1_000
DIFF_CAP = 32_000
OUTPUT_TAIL_CAP = 8_000
COMMAND_CAP = 1_000
#: A command's output as the model read it: already within the tool-output cap (12,000 by
#: default), so this only bites on a raised `toolOutputCap`.
COMMAND_OUTPUT_CAP = 32_000

# List caps: a run has at most interface.MAX_ITERATIONS model turns, so these only bite on a
# runaway model.
MAX_CALLS = 100
MAX_EDITS = 100
MAX_TURNS = 50
MAX_CALL_SUMMARIES = 200

T = TypeVar("T")


def build_receipt(
    result: RunResult,
    *,
    secrets: Sequence[str | None],
    provider: str,
    model: str,
    base_url: str,
    started_at: datetime | float,
    ended_at: datetime | float,
    state: RunState | None = None,
    check: CheckRecord | None = None,
    document: str = "",
    task: str = "",
) -> Receipt:
    """The receipt of a finished run: every string scrubbed of `secrets`, the whole bounded.

    `state` (the run's last state, None when the run never got going) supplies the tool-call
    log, the model turns and the diffs recorded at review time. Times are datetimes (naive
    ones taken as UTC) or epoch seconds.
    """
    notes: list[str] = []
    edits = _limited(result.edits, MAX_EDITS, "edits", notes)
    summaries = _limited(result.tool_calls, MAX_CALL_SUMMARIES, "tool-call summaries", notes)
    calls = _limited(state.call_log if state else (), MAX_CALLS, "tool calls", notes)
    turns = _limited(state.turns if state else (), MAX_TURNS, "turns", notes)
    diffs = state.diffs if state else {}
    raw = Receipt(
        result=result.model_copy(update={"edits": edits, "tool_calls": summaries}),
        provider=provider,
        model=model,
        base_url=base_url,
        started_at=_aware(started_at),
        ended_at=_aware(ended_at),
        document=document,
        task=task,
        tool_calls=tuple(ReceiptCall.from_record(call) for call in calls),
        edits=tuple(
            ReceiptEdit(
                edit_id=edit.edit_id,
                tool=edit.tool,
                path=edit.path,
                status=edit.status,
                detail=edit.detail,
                diff=diffs.get(edit.edit_id, ""),
                reason=edit.reason,
                hunks=edit.hunks,
            )
            for edit in edits
        ),
        turns=tuple(ReceiptTurn.from_record(turn) for turn in turns),
        check=check,
    )
    # Scrub before clipping: clipping could otherwise cut a secret into unrecognisable pieces.
    scrubbed = Scrubber(secrets).model(raw)
    return _bounded(scrubbed.model_dump(mode="json", by_alias=True), notes)


def _aware(moment: datetime | float) -> datetime:
    if isinstance(moment, datetime):
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return datetime.fromtimestamp(moment, UTC)


def _limited(items: Sequence[T], limit: int, what: str, notes: list[str]) -> tuple[T, ...]:
    """At most `limit` items: the first and last halves, as the end explains how a run ended."""
    if len(items) <= limit:
        return tuple(items)
    head = limit - limit // 2
    notes.append(f"{len(items) - limit} of {len(items)} {what} left out (kept first and last)")
    return (*items[:head], *items[len(items) - limit // 2 :])


# --- bounding --------------------------------------------------------------------------------


@dataclass
class _CappedSlot:
    slot: Slot
    cap: int


def _bounded(data: dict[str, Any], notes: list[str]) -> Receipt:
    """Clip each field to its cap, then the longest fields until the receipt fits its budget."""
    capped = _slots(data)
    clipped_by_kind: dict[str, list[int]] = {}
    for item in capped:
        before = len(item.slot.get())
        if before > item.cap:
            item.slot.set(clip(item.slot.get(), item.cap, item.slot.keep))
            clipped_by_kind.setdefault(_kind(item.slot.label), []).append(before)
    for kind, sizes in clipped_by_kind.items():
        cap = next(item.cap for item in capped if _kind(item.slot.label) == kind)
        if len(sizes) == 1:
            notes.append(f"{kind} clipped from {sizes[0]} to {cap} characters")
        else:
            notes.append(
                f"{len(sizes)} {kind} fields clipped to {cap} characters (longest {max(sizes)})"
            )

    slots = [item.slot for item in capped]
    budget = MAX_RECEIPT_BYTES - _NOTES_RESERVE
    receipt = Receipt.model_validate(data)
    # Sizes are bytes of the indented JSON and clipping counts characters, so fitting may
    # take a second round; each round removes at least the excess it measured.
    for _ in range(6):
        excess = len(receipt.to_json().encode("utf-8")) - budget
        if excess <= 0:
            break
        limit, clipped = fit_budget(slots, excess)
        if not clipped:
            log.warning("rune: receipt %s stays over its size budget", receipt.run_id)
            break
        notes.append(
            f"receipt over {MAX_RECEIPT_BYTES} bytes: {len(clipped)} longest field(s) clipped "
            f"to {limit} characters ({', '.join(clipped[:5])}{', …' if len(clipped) > 5 else ''})"
        )
        receipt = Receipt.model_validate(data)
    return receipt.model_copy(update={"notes": _compact_notes(notes)})


def _kind(label: str) -> str:
    """`toolCalls[3].digest` -> `toolCalls[*].digest`: one note for many fields of a kind."""
    return re.sub(r"\[\d+\]", "[*]", label)


def _compact_notes(notes: list[str]) -> tuple[str, ...]:
    if len(notes) <= _MAX_NOTES:
        return tuple(notes)
    return (*notes[: _MAX_NOTES - 1], f"… and {len(notes) - _MAX_NOTES + 1} more shortenings")


def _slots(data: dict[str, Any]) -> list[_CappedSlot]:
    """Every free-text field of a dumped receipt (camelCase keys), with its cap."""
    found: list[_CappedSlot] = []

    def add(container: dict[str, Any], key: str, label: str, cap: int, keep: Keep = "head") -> None:
        if isinstance(container.get(key), str):
            found.append(_CappedSlot(_slot(container, key, label, keep), cap))

    result = data["result"]
    add(result, "answer", "answer", ANSWER_CAP)
    add(result, "error", "error", ERROR_CAP)
    add(data, "task", "task", TASK_CAP)
    add(data, "document", "document", PATH_CAP)
    for index, edit in enumerate(result["edits"]):
        add(edit, "path", f"result.edits[{index}].path", PATH_CAP)
        add(edit, "detail", f"result.edits[{index}].detail", DETAIL_CAP)
        add(edit, "reason", f"result.edits[{index}].reason", DETAIL_CAP)
    for index, call in enumerate(result["toolCalls"]):
        add(call, "command", f"result.toolCalls[{index}].command", COMMAND_CAP)
        add(call, "output", f"result.toolCalls[{index}].output", COMMAND_OUTPUT_CAP)
    for index, call in enumerate(data["toolCalls"]):
        add(call, "arguments", f"toolCalls[{index}].arguments", ARGUMENTS_CAP)
        add(call, "digest", f"toolCalls[{index}].digest", DIGEST_CAP)
        add(call, "command", f"toolCalls[{index}].command", COMMAND_CAP)
        add(call, "output", f"toolCalls[{index}].output", COMMAND_OUTPUT_CAP)
    for index, edit in enumerate(data["edits"]):
        add(edit, "path", f"edits[{index}].path", PATH_CAP)
        add(edit, "detail", f"edits[{index}].detail", DETAIL_CAP)
        add(edit, "reason", f"edits[{index}].reason", DETAIL_CAP)
        add(edit, "diff", f"edits[{index}].diff", DIFF_CAP)
    check = data.get("check")
    if isinstance(check, dict):
        add(check, "command", "check.command", COMMAND_CAP)
        add(check, "stdoutTail", "check.stdoutTail", OUTPUT_TAIL_CAP, keep="tail")
        add(check, "stderrTail", "check.stderrTail", OUTPUT_TAIL_CAP, keep="tail")
    return found


def _slot(container: dict[str, Any], key: str, label: str, keep: Keep) -> Slot:
    def get() -> str:
        return str(container[key])

    def put(value: str) -> None:
        container[key] = value

    return Slot(label=label, get=get, set=put, keep=keep)
