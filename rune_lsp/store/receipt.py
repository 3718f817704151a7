"""The receipt: what a finished run did, as stored after the run, the editor and the server.

A receipt holds the run result (docs/interface.md#run-result), the compact tool-call log, each
edit with its diff and final status, tokens per model turn, the model endpoint, timings, and the
verification check. Its JSON keys are camelCase like the run result it embeds. Building one
(scrubbed and bounded) is `receipt_builder`'s; storing it is `receipts`'.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from rune_lsp.loop.records import CallRecord, HunkRecord, Outcome, RunResult, TurnRecord
from rune_lsp.loop.statuses import EditStatus, ToolStatus
from rune_lsp.store.urls import StoredUrl


class _Stored(BaseModel):
    model_config = ConfigDict(frozen=True, alias_generator=to_camel, populate_by_name=True)


class CheckRecord(_Stored):
    """The check (docs/interface.md#verification) as it ran after the last accepted edit."""

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
    # run_command only: the command and the whole result the model read.
    command: str | None = None
    output: str | None = None

    @classmethod
    def from_record(cls, record: CallRecord) -> ReceiptCall:
        return cls.model_validate(record.model_dump())


class ReceiptEdit(_Stored):
    """An edit with its final status, the user's reasons, and its diff ("" for commands): what
    landed for a `partial` edit, else what was proposed."""

    edit_id: str
    tool: str
    path: str
    status: EditStatus
    detail: str = ""
    diff: str = ""
    reason: str | None = None  # the user's words with a rejection
    hunks: tuple[HunkRecord, ...] | None = None  # each hunk's fate, decided one by one


class ReceiptTurn(_Stored):
    iteration: int
    prompt_tokens: int | None = None  # the whole prompt, cached part included
    completion_tokens: int | None = None
    cached_tokens: int | None = None  # of the prompt, reused from the server's prompt cache
    finish_reason: str | None = None
    duration_ms: float = 0.0

    @classmethod
    def from_record(cls, record: TurnRecord) -> ReceiptTurn:
        return cls(
            iteration=record.iteration,
            prompt_tokens=record.usage.prompt_tokens,
            completion_tokens=record.usage.completion_tokens,
            cached_tokens=record.usage.cached_tokens,
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

    @property
    def cached_tokens(self) -> int | None:
        return _total(turn.cached_tokens for turn in self.turns)

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2)


def _total(values: Iterable[int | None]) -> int | None:
    known = [value for value in values if value is not None]
    return sum(known) if known else None
