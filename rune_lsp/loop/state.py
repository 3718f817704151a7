"""Typed data of the agent loop: messages, calls, results, pending changes, the run's state and
what it ends with (the events it streams out are in `loop/events.py`).

Everything that must survive a server restart (the pending state) is a pydantic model that
round-trips through JSON.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

from rune_lsp.loop.statuses import FAILURES, CallStatus, EditStatus, LandedStatus, ToolStatus
from rune_lsp.text_clip import shorten

Role = Literal["system", "user", "assistant", "tool"]
Outcome = Literal["completed", "incomplete", "failed", "cancelled", "superseded"]
#: A candidate change's check in the scratch copy (docs/interface.md#candidate-fixes).
CheckedStatus = Literal["passed", "failed"]
#: none -> coached (shown how to call edit_file) -> switched (to the text protocol) ->
#: remembered (the text protocol produced a call; the provider was told).
ProtocolStep = Literal["none", "coached", "switched", "remembered"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class _Wire(BaseModel):
    """Models whose JSON is public (docs/interface.md#run-result): camelCase keys."""

    model_config = ConfigDict(frozen=True, alias_generator=to_camel, populate_by_name=True)


# --- what the model sees and says -------------------------------------------------------------


class ToolCall(_Frozen):
    """A normalised call: an id the runtime guarantees, arguments always an object."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Message(_Frozen):
    """One provider-agnostic chat message; providers map it onto their wire format."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None  # role == "tool": the call this result answers
    name: str | None = None  # role == "tool": the tool's name (Ollama wants it)


class RawToolCall(_Frozen):
    """A call as a provider parsed it, before the loop normalises it.

    `name` and `arguments` are whatever came over the wire: a name that is not a string (a
    number, a list) or arguments that are garbage make the call invalid, in the loop, which
    pairs it with a result like any malformed call; the turn's other calls still run.
    """

    id: str | None = None
    name: Any = ""
    arguments: Any = None


class Usage(_Frozen):
    """Token counts as the server reported them; None where it did not say.

    A turn the provider cut itself (`TurnCut` `size` or `repetition`) has none: the server
    sends its counts in the stream's last chunk, which a closed stream never receives.
    """

    prompt_tokens: int | None = None  # the whole prompt, cached part included
    completion_tokens: int | None = None
    # Of the prompt, tokens the server reused from its prompt cache (None: it did not say).
    cached_tokens: int | None = None


#: Why an answer ended before the model finished it: the server's output limit (`length`),
#: the runtime's per-turn size cap (`size`), or a degenerate stream repeating itself.
CutReason = Literal["length", "size", "repetition"]


class TurnCut(_Frozen):
    """An answer that was cut; the loop tells the model so on its next turn."""

    reason: CutReason
    chars: int  # characters of text, thinking and arguments received when it ended


class ModelTurn(_Frozen):
    """What one model call returned."""

    text: str = ""  # visible answer text (thinking excluded)
    tool_calls: tuple[RawToolCall, ...] = ()
    thinking: str | None = None
    usage: Usage = Usage()
    finish_reason: str | None = None
    cut: TurnCut | None = None


class ModelCapabilities(_Frozen):
    native_tools: bool = True
    thinking: bool = False
    context_length: int | None = None  # tokens the model was trained for; None = unknown
    # Whether the loop may move a run from native tools to the text protocol when the model
    # answers in prose (False when a setting forced the protocol or it is already settled).
    adaptive_protocol: bool = False


class ToolSpec(_Frozen):
    """A tool as described to the model (its JSON schema comes from a pydantic model)."""

    name: str
    description: str
    parameters: dict[str, Any]
    mutating: bool = False


# --- what tools return --------------------------------------------------------------------------


class ToolOutcome(_Frozen):
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


class PreparedEdit(_Frozen):
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


class PreparedCommand(_Frozen):
    kind: Literal["command"] = "command"
    edit_id: str
    call_id: str
    tool: Literal["run_command"] = "run_command"
    command: str
    cwd: str
    reason: str = ""


PreparedChange = Annotated[PreparedEdit | PreparedCommand, Field(discriminator="kind")]


# --- decisions on pending changes ---------------------------------------------------------------


class Approve(_Frozen):
    """The user accepted; the executor re-checks the rules and then performs the change."""

    kind: Literal["approve"] = "approve"
    #: A command approved for the rest of the run: the same command runs without asking again
    #: (the front end's allowance, `tools/allowed_commands.py`; the loop ignores it).
    for_run: bool = False


class Reject(_Frozen):
    kind: Literal["reject"] = "reject"
    reason: str = ""


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


class Landed(_Frozen):
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


class CheckReport(_Frozen):
    """One run of `checkCommand`, done by the front end's runner and handed to the loop.

    `output` is already bounded (the tail of what it printed). `note` says why the result may
    not describe the run's text (e.g. unsaved editor buffers); such a run never counts as a pass.
    """

    command: str
    exit_code: int | None = None  # None: it never exited (could not start, or timed out)
    timed_out: bool = False
    output: str = ""
    note: str = ""
    # Failed tests its output counts (runner/candidates.count_failures); None: it names none.
    failures: int | None = None

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.note


# --- the serializable state of a paused or running run -----------------------------------------


class CallRecord(_Frozen):
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


class TurnRecord(_Frozen):
    iteration: int
    usage: Usage
    finish_reason: str | None = None
    duration_ms: float = 0.0


class RepeatEntry(_Frozen):
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
    block_notes: int = 0  # times the model was told why its code block was not used
    # The check before the first model turn: True failing, False passing, None not run.
    check_failing: bool | None = None
    # The check's latest verdict (before the first turn or after an edit): True failing.
    check_fails_now: bool = False
    candidates: CandidateStats = Field(default_factory=CandidateStats)

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


# --- what a run ends with -----------------------------------------------------------------------


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


class Paused(_Frozen):
    """The run waits for decisions on `state.turn.pending`; resume it with those decisions."""

    kind: Literal["paused"] = "paused"
    state: RunState
    iterations_used: int
    iteration_budget: int


class Finished(_Frozen):
    kind: Literal["finished"] = "finished"
    result: RunResult
    state: RunState


RunOutcome = Paused | Finished


def describe_call(call: ToolCall) -> str:
    """A short human label for progress: `read_file src/app.py`."""
    args = call.arguments
    for key in ("path", "command", "pattern"):
        value = args.get(key)
        if isinstance(value, str) and value:
            shown = shorten(value, 60)
            return f"{call.name} {shown}"
    return call.name
