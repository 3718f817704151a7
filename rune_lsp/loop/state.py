"""The run's state and what it is made of: the pending changes a turn prepared, the decisions
on them, the check's report as the loop hears it, the turn in progress and the whole run's
`RunState`, and how a run pauses or finishes. The messages it keeps are in `loop/messages.py`,
its records and result in `loop/records.py`, the events it streams out in `loop/events.py`.

Everything that must survive a server restart (the pending state) is a pydantic model that
round-trips through JSON.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rune_lsp.loop.frozen import Frozen
from rune_lsp.loop.messages import Message, ToolCall
from rune_lsp.loop.records import (
    CallRecord,
    CandidateStats,
    EditRecord,
    HunkRecord,
    RunResult,
    TurnRecord,
)
from rune_lsp.loop.statuses import FAILURES, CallStatus, EditStatus, LandedStatus, ToolStatus

#: A candidate change's check in the scratch copy (docs/interface.md#candidate-fixes).
CheckedStatus = Literal["passed", "failed"]
#: none -> coached (shown how to call edit_file) -> switched (to the text protocol) ->
#: remembered (the text protocol produced a call; the provider was told).
ProtocolStep = Literal["none", "coached", "switched", "remembered"]


# --- what tools return --------------------------------------------------------------------------


class ToolOutcome(Frozen):
    """The result of executing (or refusing) one call; `content` is what the model reads."""

    status: ToolStatus
    content: str
    # Set for mutating calls once decided: what happened to the change itself.
    edit_status: EditStatus | None = None

    @property
    def is_failure(self) -> bool:
        return self.status in FAILURES

    @property
    def call_status(self) -> CallStatus:
        return CallStatus(self.status, self.edit_status)


class PreparedEdit(Frozen):
    """A computed file change, nothing written. `old_text` None means the file is new.

    Keeping the text it was computed from lets apply tell a stale target from a good one.
    """

    kind: Literal["edit"] = "edit"
    edit_id: str
    call_id: str
    tool: Literal["edit_file", "write_file"]
    path: str  # absolute, already through the sandbox
    old_text: str | None
    new_text: str
    reason: str = ""  # the model's words around the call, shown to the reviewer
    # The check's verdict on this change in a scratch copy (loop/candidates.py), and the
    # sentence the review shows with it ("passes `pytest -q`"); None: not checked.
    checked: CheckedStatus | None = None
    check_note: str = ""


class PreparedCommand(Frozen):
    kind: Literal["command"] = "command"
    edit_id: str
    call_id: str
    tool: Literal["run_command"] = "run_command"
    command: str
    cwd: str
    reason: str = ""


PreparedChange = Annotated[PreparedEdit | PreparedCommand, Field(discriminator="kind")]


# --- decisions on pending changes ---------------------------------------------------------------


class Approve(Frozen):
    """The user accepted; the executor re-checks the rules and then performs the change."""

    kind: Literal["approve"] = "approve"
    #: A command approved for the rest of the run: the same command runs without asking again
    #: (the front end's allowance, `tools/allowed_commands.py`; the loop ignores it).
    for_run: bool = False


class Reject(Frozen):
    kind: Literal["reject"] = "reject"
    reason: str = ""


class Landed(Frozen):
    """The editor applied (or refused) the change itself, e.g. VS Code's refactor preview.

    `detail` tells the model what happened, e.g. which hunks were kept in a partial accept;
    `reason` and `hunks` are the user's own words and the hunks' fates, for the record.
    """

    kind: Literal["landed"] = "landed"
    # "denied": the rules refused it when re-checked right before it was sent (`recheck`).
    status: LandedStatus
    detail: str = ""
    reason: str = ""
    hunks: tuple[HunkRecord, ...] = ()
    # A `partial` edit's unified diff of what landed, for the receipt ("": the proposal's).
    diff: str = ""


Decision = Annotated[Approve | Reject | Landed, Field(discriminator="kind")]


# --- the check command, as the loop hears it ----------------------------------------------------


class CheckReport(Frozen):
    """One run of `checkCommand`, done by the front end's runner and handed to the loop.

    `output` is already bounded (the tail of what it printed). `note` says why the result may
    not describe the run's text (e.g. unsaved editor buffers); such a run never counts as a pass.
    """

    command: str
    exit_code: int | None = None  # None: it never exited (could not start, or timed out)
    timed_out: bool = False
    output: str = ""
    note: str = ""
    # Failed tests its output counts (runner/check_result.count_failures); None: it names none.
    failures: int | None = None

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.note


# --- the serializable state of a paused or running run -----------------------------------------


class RepeatEntry(Frozen):
    """Exact-repeat bookkeeping for one call signature."""

    result_hash: str
    count: int


class TurnState(BaseModel):
    """The model turn in progress: its calls in the model's order, the results known so far,
    the changes waiting for review and the decisions taken on them (by edit id).

    Empty between turns; a paused run's front end decides its `pending` changes here.
    """

    model_config = ConfigDict(frozen=False)

    calls: list[ToolCall] = Field(default_factory=list)
    results: dict[str, ToolOutcome] = Field(default_factory=dict)
    pending: list[PreparedChange] = Field(default_factory=list)
    decisions: dict[str, Decision] = Field(default_factory=dict)
    # The calls were read from the answer's code block (loop/proposals.py), not called.
    from_block: bool = False

    def decide(self, edit_id: str, decision: Approve | Reject | Landed) -> None:
        if not any(p.edit_id == edit_id for p in self.pending):
            raise KeyError(f"no pending edit {edit_id!r} in this turn")
        self.decisions[edit_id] = decision

    @property
    def undecided(self) -> list[PreparedChange]:
        return [p for p in self.pending if p.edit_id not in self.decisions]


#: Where RunState kept the turn's fields before `TurnState` (old name -> TurnState's name).
_OLD_TURN_FIELDS = {
    "turn_calls": "calls",
    "turn_results": "results",
    "pending": "pending",
    "decisions": "decisions",
}


class RunState(BaseModel):
    """Everything the runtime needs to continue a run, JSON round-trippable.

    Persisted whenever the run pauses for review, so a new process can resume it.
    """

    # Unknown keys are ignored: pending files written by older versions (which stored
    # `breaker`) must still resume.
    model_config = ConfigDict(frozen=False, extra="ignore")

    run_id: str
    iteration_budget: int
    iterations_used: int = 0
    native_tools: bool = True
    messages: list[Message] = Field(default_factory=list)
    turn: TurnState = Field(default_factory=TurnState)
    # Circuit breaker: consecutive failures per call signature (name + canonical arguments).
    failure_streaks: dict[str, int] = Field(default_factory=dict)
    repeats: dict[str, RepeatEntry] = Field(default_factory=dict)
    call_log: list[CallRecord] = Field(default_factory=list)
    edits: list[EditRecord] = Field(default_factory=list)
    turns: list[TurnRecord] = Field(default_factory=list)
    used_tools: bool = False
    # What the runtime will tell the model before its next turn (e.g. that its answer was
    # cut); appended to the history as one user message right before that call.
    notices: list[str] = Field(default_factory=list)
    # The protocol-choice steps taken (loop/protocol_choice.py).
    protocol_step: ProtocolStep = "none"
    # Unified diff per edit id, recorded by the front end at review time for the receipt.
    diffs: dict[str, str] = Field(default_factory=dict)
    next_call_number: int = 1
    next_edit_number: int = 1
    # The file the run was asked to change, as the model names it: a fenced code block in an
    # answer is read as an edit of it (answers/code/reading.py). None: no code blocks are read.
    target: str | None = None
    # The files the task showed beside the target as where the bug may be instead (a failing
    # test's module under test and the files it uses): the notes name them with the target.
    beside: tuple[str, ...] = ()
    block_notes: int = 0  # times the model was told why its code block was not used
    # The check before the first model turn: True failing, False passing, None not run.
    check_failing: bool | None = None
    # The check's latest verdict (before the first turn or after an edit): True failing.
    check_fails_now: bool = False
    # Tests the latest verdict counts as failing (CheckReport.failures): None when its output
    # counts none (a linter, a crash), so layout may be what it checks.
    failing_tests: int | None = None
    # The failing check before the first turn, kept from the model's first turn: with candidate
    # fixes the check verifies them in a scratch copy instead of hinting (issue 26). Shown once,
    # when the model sends the current code back; a candidate's retry shows its own check.
    withheld_check: CheckReport | None = None
    candidates: CandidateStats = Field(default_factory=CandidateStats)

    def hear_check(self, report: CheckReport) -> None:
        """The check's latest verdict (before the first turn or after an edit) is `report`."""
        self.check_fails_now = not report.passed
        # Unsaved buffers: the count is the disk's, not the text a candidate is checked on.
        self.failing_tests = None if report.note else report.failures

    def new_edit_id(self) -> str:
        """The next pending edit's id, unique within the run."""
        edit_id = f"{self.run_id}-edit-{self.next_edit_number}"
        self.next_edit_number += 1
        return edit_id

    @model_validator(mode="before")
    @classmethod
    def _turn_of_old_files(cls, data: Any) -> Any:
        """Pending files written before `turn` existed hold its fields at the top level."""
        if not isinstance(data, dict) or "turn" in data:
            return data
        fields = {new: data[old] for old, new in _OLD_TURN_FIELDS.items() if old in data}
        if not fields:
            return data
        rest = {key: value for key, value in data.items() if key not in _OLD_TURN_FIELDS}
        return {**rest, "turn": fields}


# --- how a run pauses or ends --------------------------------------------------------------------


class Paused(Frozen):
    """The run waits for decisions on `state.turn.pending`; resume it with those decisions."""

    kind: Literal["paused"] = "paused"
    state: RunState
    iterations_used: int
    iteration_budget: int


class Finished(Frozen):
    kind: Literal["finished"] = "finished"
    result: RunResult
    state: RunState


RunOutcome = Paused | Finished
