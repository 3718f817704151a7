"""What a run records and reports: the compact call log, each edit's and turn's record, the
candidate fixes' counts, and the run result (docs/interface.md#run-result) built from them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer
from pydantic.alias_generators import to_camel

from rune_lsp.loop.frozen import Frozen
from rune_lsp.loop.messages import Usage
from rune_lsp.loop.statuses import EditStatus, ToolStatus

Outcome = Literal["completed", "incomplete", "failed", "cancelled", "superseded"]


class _Wire(BaseModel):
    """Models whose JSON is public (docs/interface.md#run-result): camelCase keys."""

    model_config = ConfigDict(frozen=True, alias_generator=to_camel, populate_by_name=True)


class _WireOptional(_Wire):
    """A public record whose additive fields are left out while they have no value."""

    @model_serializer(mode="wrap")
    def _without_absent(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {key: value for key, value in data.items() if value is not None}


class HunkRecord(_WireOptional):
    """What became of one hunk of an edit decided hunk by hunk (docs/interface.md#run-result):
    `hunkId` numbers the hunks of the proposal from 1, as the model saw them."""

    hunk_id: int
    status: EditStatus
    reason: str | None = None  # the user's words with a rejection


class CallRecord(Frozen):
    """One line of the compact tool-call log (receipts)."""

    call_id: str
    name: str
    arguments: str  # canonical JSON, bounded
    status: ToolStatus
    digest: str  # bounded head of the result the model read
    iteration: int
    started_at: float
    duration_ms: float
    # run_command only: the command, and the whole result the model read (bounded by the
    # tool-output cap like every result), for the user's record (issue 27 point 3).
    command: str | None = None
    output: str | None = None


class EditRecord(_WireOptional):
    """An edit as reported in the run result (docs/interface.md#run-result)."""

    edit_id: str
    tool: str
    path: str  # workspace-relative when possible; the command for run_command
    status: EditStatus
    detail: str = ""
    # Additive to CONTRACT section 6, absent when empty: why the user rejected it (their words),
    # and each hunk's fate when hunks were decided one by one.
    reason: str | None = None
    hunks: tuple[HunkRecord, ...] | None = None


class CandidateStats(_Wire):
    """Candidate fixes of a run (docs/interface.md#run-result): how many the model wrote, how
    many were checked in the scratch copy, how many of those passed."""

    tried: int = 0
    checks_run: int = 0
    passed: int = 0


class TurnRecord(Frozen):
    iteration: int
    usage: Usage
    finish_reason: str | None = None
    duration_ms: float = 0.0


class ToolCallSummary(_WireOptional):
    name: str
    status: ToolStatus
    # run_command only (additive to CONTRACT section 6: absent for other tools).
    command: str | None = None
    output: str | None = None

    @classmethod
    def of(cls, record: CallRecord) -> ToolCallSummary:
        return cls(
            name=record.name, status=record.status, command=record.command, output=record.output
        )


class RunResult(_Wire):
    """The run result (docs/interface.md#run-result) (front ends fill `verified` and `receipt`)."""

    run_id: str
    outcome: Outcome
    answer: str = ""
    error: str | None = None
    iterations_used: int = 0
    iteration_budget: int
    edits: tuple[EditRecord, ...] = ()
    tool_calls: tuple[ToolCallSummary, ...] = ()
    verified: bool | None = None
    # Null unless the run checked candidate fixes (a checkCommand and `candidates` > 1).
    candidates: CandidateStats | None = None
    receipt: str | None = None
