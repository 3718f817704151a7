"""Receipts: what a finished run did, kept on disk after the run, the editor and the server.

A receipt holds the run result (CONTRACT section 6), the compact tool-call log, each edit with
its diff and final status, tokens per model turn, the model endpoint, timings, and the
verification check. It is scrubbed of secrets and bounded in size whatever the run read, and its
JSON keys are camelCase like the run result it embeds.
"""

from __future__ import annotations

import builtins
import logging
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import AwareDatetime, BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from rune_lsp.loop.state import (
    CallRecord,
    EditStatus,
    Outcome,
    RunResult,
    RunState,
    ToolStatus,
    TurnRecord,
)
from rune_lsp.store.atomic import (
    atomic_write_text,
    read_json_model,
    remove_stale_temps,
    stored_files,
)
from rune_lsp.store.bounds import Keep, Slot, clip, fit_budget
from rune_lsp.store.markdown import render_receipt
from rune_lsp.store.runids import checked_run_id
from rune_lsp.store.scrub import Scrubber
from rune_lsp.store.urls import StoredUrl

log = logging.getLogger(__name__)

#: Whole receipt, as written (indented JSON, UTF-8).
MAX_RECEIPT_BYTES = 256 * 1024
#: A write prunes at least this often (seconds), whatever the count.
PRUNE_INTERVAL_SECONDS = 600.0
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

# List caps: a run has at most 8 model turns, so these only bite on a runaway model.
MAX_CALLS = 100
MAX_EDITS = 100
MAX_TURNS = 50
MAX_CALL_SUMMARIES = 200

T = TypeVar("T")


class _Stored(BaseModel):
    model_config = ConfigDict(frozen=True, alias_generator=to_camel, populate_by_name=True)


class CheckRecord(_Stored):
    """The verification check (CONTRACT section 5) as it ran after the last accepted edit."""

    command: str
    exit_code: int | None = None  # None: it never exited (could not start, or timed out)
    timed_out: bool = False
    stdout_tail: str = ""
    stderr_tail: str = ""
    duration_ms: float = 0.0

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


class ReceiptCall(_Stored):
    """One line of the tool-call log (from the loop's CallRecord)."""

    call_id: str
    name: str
    arguments: str
    status: ToolStatus
    digest: str
    iteration: int
    started_at: float
    duration_ms: float

    @classmethod
    def from_record(cls, record: CallRecord) -> ReceiptCall:
        return cls.model_validate(record.model_dump())


class ReceiptEdit(_Stored):
    """An edit with its final status and the diff that was proposed ("" for commands)."""

    edit_id: str
    tool: str
    path: str
    status: EditStatus
    detail: str = ""
    diff: str = ""


class ReceiptTurn(_Stored):
    iteration: int
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    duration_ms: float = 0.0

    @classmethod
    def from_record(cls, record: TurnRecord) -> ReceiptTurn:
        return cls(
            iteration=record.iteration,
            prompt_tokens=record.usage.prompt_tokens,
            completion_tokens=record.usage.completion_tokens,
            finish_reason=record.finish_reason,
            duration_ms=record.duration_ms,
        )


class Receipt(_Stored):
    """One finished run, as stored in `receipts/<runId>.json` (build it with build_receipt)."""

    schema_version: Literal[1] = 1
    result: RunResult
    provider: str
    model: str
    base_url: StoredUrl
    started_at: AwareDatetime
    ended_at: AwareDatetime
    document: str = ""  # the document (uri or path) the run worked on
    task: str = ""  # the instruction the run was given
    tool_calls: tuple[ReceiptCall, ...] = ()
    edits: tuple[ReceiptEdit, ...] = ()
    turns: tuple[ReceiptTurn, ...] = ()
    check: CheckRecord | None = None
    notes: tuple[str, ...] = ()  # what was shortened or left out to keep the receipt bounded

    @property
    def run_id(self) -> str:
        return self.result.run_id

    @property
    def outcome(self) -> Outcome:
        return self.result.outcome

    @property
    def prompt_tokens(self) -> int | None:
        return _total(turn.prompt_tokens for turn in self.turns)

    @property
    def completion_tokens(self) -> int | None:
        return _total(turn.completion_tokens for turn in self.turns)

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2)


def _total(values: Iterable[int | None]) -> int | None:
    known = [value for value in values if value is not None]
    return sum(known) if known else None


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
    for index, call in enumerate(data["toolCalls"]):
        add(call, "arguments", f"toolCalls[{index}].arguments", ARGUMENTS_CAP)
        add(call, "digest", f"toolCalls[{index}].digest", DIGEST_CAP)
    for index, edit in enumerate(data["edits"]):
        add(edit, "path", f"edits[{index}].path", PATH_CAP)
        add(edit, "detail", f"edits[{index}].detail", DETAIL_CAP)
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


# --- the store -------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoredReceipt:
    """A receipt file as listed: its run id, where it is, when it was written (epoch s)."""

    run_id: str
    path: Path
    modified: float


class ReceiptStore:
    """Receipts under `root/receipts/`: `<runId>.json`, plus `<runId>.md` when rendered.

    Keeps at most `max_count` receipts no older than `max_age_days`; the oldest go first.
    Listing the directory costs a stat per receipt, so a write prunes only when its count
    goes past the limit, on this store's first write, and every `PRUNE_INTERVAL_SECONDS`
    (receipts age, and another process sharing the directory writes ones we did not count).
    """

    def __init__(self, root: Path, *, max_count: int = 200, max_age_days: float = 30) -> None:
        if max_count < 1:
            raise ValueError(f"max_count must be at least 1, got {max_count}")
        self.root = root
        self.directory = root / "receipts"
        self.max_count = max_count
        self.max_age_days = max_age_days
        self._last_written: str | None = None
        self._known: int | None = None  # receipts as of the last prune, plus writes since
        self._pruned_at = float("-inf")  # time.monotonic() of the last prune

    def receipt_path(self, run_id: str) -> Path:
        """Where the receipt of `run_id` lives; raises InvalidRunIdError for an unsafe id."""
        return self.directory / f"{checked_run_id(run_id)}.json"

    def markdown_path(self, run_id: str) -> Path:
        return self.directory / f"{checked_run_id(run_id)}.md"

    def write(self, receipt: Receipt) -> Path:
        """Store `receipt` atomically (its `result.receipt` filled with the path when unset).

        Then prunes, never removing this receipt. A failed prune is logged, not raised: the
        receipt itself is safe on disk.
        """
        path = self.receipt_path(receipt.run_id)
        if receipt.result.receipt is None:
            receipt = receipt.model_copy(
                update={"result": receipt.result.model_copy(update={"receipt": str(path)})}
            )
        atomic_write_text(path, receipt.to_json())
        self._last_written = receipt.run_id
        if self._prune_due():
            self.prune()
        return path

    def _prune_due(self) -> bool:
        if self._known is None:
            return True
        self._known += 1  # a rewrite counts again: at worst an early prune
        overdue = time.monotonic() - self._pruned_at > PRUNE_INTERVAL_SECONDS
        return self._known > self.max_count or overdue

    def load(self, run_id: str) -> Receipt | None:
        """The stored receipt, or None when there is none or it is unreadable (logged)."""
        return read_json_model(self.receipt_path(run_id), Receipt)

    def list(self) -> builtins.list[StoredReceipt]:
        """Stored receipts, newest first; temp files of unfinished writes are not receipts."""
        entries: builtins.list[StoredReceipt] = []
        for path in stored_files(self.directory, ".json"):
            try:
                modified = path.stat().st_mtime
            except OSError:
                continue  # removed meanwhile by another process's prune
            entries.append(StoredReceipt(run_id=path.stem, path=path, modified=modified))
        entries.sort(key=lambda entry: (entry.modified, entry.run_id), reverse=True)
        return entries

    def prune(self, *, now: float | None = None) -> builtins.list[str]:
        """Remove receipts past the count or age limit, oldest first; returns their run ids.

        The receipt this store wrote last is always kept. Leftover temp files of writers that
        died are removed too.
        """
        current = time.time() if now is None else now
        remove_stale_temps(self.directory, now=current)
        oldest_allowed = current - self.max_age_days * 86_400
        listed = self.list()
        expired = [
            entry.run_id
            for position, entry in enumerate(listed)
            if entry.run_id != self._last_written
            and (position >= self.max_count or entry.modified < oldest_allowed)
        ]
        for run_id in reversed(expired):  # oldest first
            self._remove(run_id)
        self._known = len(listed) - len(expired)
        self._pruned_at = time.monotonic()
        return expired[::-1]

    def _remove(self, run_id: str) -> None:
        for path in (self.receipt_path(run_id), self.markdown_path(run_id)):
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:
                log.warning("rune: cannot remove old receipt %s: %s", path, exc)

    def write_markdown(self, receipt: Receipt) -> Path:
        """`<runId>.md` next to the JSON, for the editor's `Show receipt`. Its directory is
        not fsynced: after a power loss it is complete or absent, and the editor then opens
        the JSON, which is durable."""
        path = self.markdown_path(receipt.run_id)
        atomic_write_text(path, render_receipt(receipt), durable=False)
        return path
