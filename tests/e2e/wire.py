"""The run result exactly as docs/interface.md#run-result spells it, to check what the server
returns.

Deliberately independent of `rune_lsp.loop.records.RunResult`: a key renamed or dropped on the
server side must fail here, not be absorbed by a shared model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

Outcome = Literal["completed", "incomplete", "failed", "cancelled", "superseded"]
EditStatus = Literal["applied", "partial", "rejected", "stale", "pending"]
ToolStatus = Literal["ok", "failed", "denied", "skipped"]


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, extra="forbid", frozen=True)


class WireHunk(_Wire):
    """An addition to the contract: a hunk decided on its own (docs/interface.md#run-result)."""

    hunk_id: int
    status: EditStatus
    reason: str | None = None


class WireEdit(_Wire):
    edit_id: str
    tool: str
    path: str
    status: EditStatus
    detail: str = ""  # an addition to the contract: why, in a sentence
    reason: str | None = None  # additions: the user's words, and hunks decided one by one
    hunks: tuple[WireHunk, ...] | None = None


class WireToolCall(_Wire):
    name: str
    status: ToolStatus
    command: str | None = None  # additions, on run_command only: the command and its output
    output: str | None = None


class WireCandidates(_Wire):
    tried: int
    checks_run: int
    passed: int


class WireResult(_Wire):
    run_id: str
    outcome: Outcome
    answer: str
    error: str | None
    iterations_used: int
    iteration_budget: int
    edits: tuple[WireEdit, ...]
    tool_calls: tuple[WireToolCall, ...]
    verified: bool | None
    candidates: WireCandidates | None
    receipt: str | None

    def statuses(self) -> list[tuple[str, str]]:
        """(tool, status) of each edit, the usual thing to assert on."""
        return [(edit.tool, edit.status) for edit in self.edits]

    def calls(self) -> list[tuple[str, str]]:
        return [(call.name, call.status) for call in self.tool_calls]
