"""The agent loop: model turn -> tool calls -> results, until a stop condition.

Stop conditions and what they end as:

- visible final text -> `completed`; an empty final answer -> `incomplete`;
- the iteration budget spent before a final answer -> `failed` ("iteration limit ...");
- the circuit breaker (one call signature failing twice in a row) -> `failed`;
- the exact-repeat guard blocking a call -> `incomplete`, with error
  `repeat guard: NAME blocked after N identical calls` (N counts the blocked call). The run did
  not reach an answer of its own, but it did not fail either: one tool-less synthesis call (if
  budget remains) writes the answer, and the runtime appends which calls ran and which were
  skipped, so the user gets what was found without the model claiming work it did not do;
- a provider error or any other exception from the model -> `failed`;
- the run's task cancelled -> `cancelled`, with no model call or tool dispatch after that.

Mutating calls pause the run: `Paused` carries the JSON round-trippable `RunState`, and any
`AgentLoop` (also in a new process) continues it with `resume` once every change is decided.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict

from pydantic import BaseModel

from rune_lsp.loop.config import LoopConfig, LoopConfigError
from rune_lsp.loop.context_budget import (
    cap_output,
    estimate_tokens,
    fit_history,
    history_budget,
)
from rune_lsp.loop.decisions import (
    final_record,
    landed_outcome,
    pending_record,
    rejected_outcome,
)
from rune_lsp.loop.events import EventEmitter, EventSink
from rune_lsp.loop.fallback import protocol_prompt, render_for_text_protocol
from rune_lsp.loop.guards import (
    breaker_error,
    breaker_tripped,
    first_occurrences,
    record_repeat,
    repeat_blocked,
    repeat_error,
    repeat_skip_note,
    repeat_warning,
    result_hash,
    update_streaks,
)
from rune_lsp.loop.normalize import (
    IdAllocator,
    NormalizedCall,
    call_signature,
    canonical_json,
    normalize_calls,
)
from rune_lsp.loop.ports import (
    Checker,
    Model,
    ModelError,
    ToolDefinition,
    ToolExecutor,
    ToolsUnsupportedError,
)
from rune_lsp.loop.prompts import FINAL_SYNTHESIS_INSTRUCTION, system_text
from rune_lsp.loop.proposals import (
    add_check_after_edits,
    add_first_check,
    block_calls,
    fixed_answer,
    landed_edits,
)
from rune_lsp.loop.protocol_choice import take_step
from rune_lsp.loop.state import (
    Approve,
    CallRecord,
    CheckReport,
    CheckStarted,
    Decision,
    Finished,
    Landed,
    Message,
    ModelDelta,
    ModelTurn,
    ModelTurnStarted,
    Outcome,
    Paused,
    PendingApproval,
    PreparedChange,
    RawToolCall,
    RunEnded,
    RunOutcome,
    RunResult,
    RunState,
    ToolCall,
    ToolCallSummary,
    ToolOutcome,
    ToolRequested,
    ToolResulted,
    ToolSpec,
    TurnCut,
    TurnRecord,
    describe_call,
)
from rune_lsp.loop.text_calls import parse_text_turn
from rune_lsp.loop.turn_cuts import cut_error, cut_notice, kept_text

__all__ = [
    "AgentLoop",
    "LoopConfig",
    "LoopConfigError",
    "ResumeError",
]

#: CallRecord bounds: a receipt line, not a copy of the output.
MAX_LOGGED_ARGUMENTS = 500
MAX_DIGEST = 200
#: The model's words shown to the reviewer next to a proposed change.
MAX_REASON = 2_000
#: Calls skipped past the per-turn cap between two yields to the event loop.
_YIELD_EVERY = 256


class ResumeError(ValueError):
    """`resume` was given a state it cannot continue (nothing pending, or undecided edits)."""


class AgentLoop:
    def __init__(
        self,
        model: Model,
        tools: ToolExecutor,
        config: LoopConfig | None = None,
        on_event: EventSink | None = None,
    ) -> None:
        self.config = config if config is not None else LoopConfig()
        self.model = model
        self.tools = tools
        self.on_event = on_event

    async def run(
        self,
        task: str,
        *,
        run_id: str | None = None,
        target: str | None = None,
        checker: Checker | None = None,
    ) -> RunOutcome:
        """Start a run on `task`, the user prompt the front end composed.

        `target`: the file the run is asked to change (a code block in an answer is read as an
        edit of it). `checker`: the check command, run before the first turn and after edits.
        """
        state = RunState(
            run_id=run_id or uuid.uuid4().hex,
            iteration_budget=self.config.max_iterations,
            messages=[
                Message(role="system", content=system_text(self.config.system_prompt)),
                Message(role="user", content=task),
            ],
            target=target,
        )
        return await _Run(self, state, checker).start()

    async def resume(self, state: RunState, *, checker: Checker | None = None) -> RunOutcome:
        """Continue a paused run once every pending change has a decision.

        The state is continued in place and returned in the outcome.
        """
        if not state.pending:
            raise ResumeError(f"run {state.run_id} has no pending changes to resume")
        undecided = [change.edit_id for change in state.undecided]
        if undecided:
            raise ResumeError(
                f"run {state.run_id} cannot resume: {len(undecided)} pending change(s) "
                f"without a decision: {', '.join(undecided)}"
            )
        return await _Run(self, state, checker).resume()

    async def prepare_dispatch(self, change: PreparedChange) -> PreparedChange | ToolOutcome:
        """Right before an approved change goes to an editor: the change to send, or the refusal.

        The change to send may be a re-based copy of `change` (same ids): the editor's edit must
        be built from its `old_text`/`new_text`, not from the proposal's.
        """
        try:
            return await self.tools.rebase(change)
        except Exception as exc:
            return ToolOutcome(status="failed", content=f"Error: re-check failed: {_describe(exc)}")


# --- one run ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Stop:
    """Why a turn ended the run after its calls were handled."""

    kind: Literal["breaker", "repeat"]
    error: str


class _StopRun(Exception):
    """Unwinds a run to its end from anywhere inside it."""

    def __init__(self, outcome: Outcome, error: str) -> None:
        super().__init__(error)
        self.outcome = outcome
        self.error = error


class _Progress(TypedDict):
    """The fields every event carries."""

    run_id: str
    iterations_used: int
    iteration_budget: int


@dataclass(frozen=True)
class _Timing:
    started_at: float
    duration_ms: float

    @classmethod
    def instant(cls) -> _Timing:
        """For results that involved no work (errors found by the runtime, copies, skips)."""
        return cls(time.time(), 0.0)


class _Run:
    """The mutable context of one run (or one resumption of it)."""

    def __init__(self, loop: AgentLoop, state: RunState, checker: Checker | None = None) -> None:
        self.checker = checker
        self.model = loop.model
        self.executor = loop.tools
        self.config = loop.config
        self.state = state
        self.events = EventEmitter(loop.on_event)
        self.tools: dict[str, ToolDefinition] = {}
        self.context_length: int | None = None
        self.adaptive = False
        # (native, offer_tools) -> the protocol prompt and the tokens the tools take up; the
        # same every turn of a run, and costly to measure (the schemas as JSON).
        self._framing: dict[tuple[bool, bool], tuple[str, int]] = {}

    # --- entry points ---------------------------------------------------------------------------

    async def start(self) -> RunOutcome:
        return await self._guarded(self._start)

    async def resume(self) -> RunOutcome:
        return await self._guarded(self._resume)

    async def _start(self) -> RunOutcome:
        await self._load(fresh=True)
        await self._check_first()
        return await self._drive()

    async def _resume(self) -> RunOutcome:
        await self._load(fresh=False)
        landed = landed_edits(self.state)
        stop = await self._resolve_pending()
        ended = await self._end_turn(stop)
        if ended is None and landed_edits(self.state) != landed:
            ended = await self._check_edits()
        return ended if ended is not None else await self._drive()

    async def _guarded(self, body: Callable[[], Awaitable[RunOutcome]]) -> RunOutcome:
        try:
            return await body()
        except _StopRun as stop:
            return await self._finish(stop.outcome, stop.error)
        except asyncio.CancelledError:
            # Returning (not re-raising) is the contract: the caller gets a typed result.
            return await self._finish("cancelled", "the run was cancelled")

    async def _load(self, *, fresh: bool) -> None:
        try:
            capabilities = await self.model.capabilities()
        except ModelError as exc:
            raise _StopRun("failed", str(exc)) from exc
        except Exception as exc:
            raise _StopRun("failed", _describe(exc)) from exc
        self.context_length = capabilities.context_length
        self.adaptive = capabilities.adaptive_protocol
        if fresh:
            self.state.native_tools = capabilities.native_tools
        try:
            definitions = list(self.executor.definitions())
        except Exception as exc:
            raise _StopRun("failed", f"tool definitions failed: {_describe(exc)}") from exc
        self.tools = {definition.spec.name: definition for definition in definitions}

    # --- the loop -------------------------------------------------------------------------------

    async def _drive(self) -> RunOutcome:
        state = self.state
        while True:
            if state.iterations_used >= state.iteration_budget:
                raise _StopRun(
                    "failed",
                    f"iteration limit reached ({state.iterations_used}/{state.iteration_budget}) "
                    "before a final answer",
                )
            turn = await self._call_model(offer_tools=True)
            visible, raw_calls = self._read_turn(turn)
            if turn.cut is not None:  # the model hears why next turn; the history keeps a head
                state.notices.append(cut_notice(turn.cut))
                visible = kept_text(visible)
            note = None
            if not raw_calls and turn.cut is None:  # a cut answer's last block is unfinished
                raw_calls, note = await self._calls_from_blocks(visible)
            if not raw_calls:
                state.messages.append(Message(role="assistant", content=visible))
                if turn.cut is not None:
                    ended = await self._after_cut_answer(turn.cut, visible)
                    if ended is not None:
                        return ended
                    continue
                if note is not None:  # told why its code block was not taken; it tries again
                    state.messages.append(Message(role="user", content=note))
                    continue
                # Runs only on a turn with no call at all: none native, none written as text
                # (`_read_turn`), no block-derived edit (`_calls_from_blocks`, just above) and
                # no note about a block. Coach, then switch protocol.
                if take_step(state, visible, adaptive=self.adaptive, tools=list(self.tools)):
                    continue
                return await self._final_answer(visible)
            if state.protocol_step == "switched":
                self._remember_text_protocol()
            ids = self._id_allocator()
            calls = normalize_calls(raw_calls, self.tools, ids)
            state.next_call_number = ids.next_number
            state.used_tools = True
            state.messages.append(
                Message(
                    role="assistant",
                    content=visible,
                    tool_calls=tuple(normalized.call for normalized in calls),
                )
            )
            stop = await self._dispatch_turn(calls, reason=visible[:MAX_REASON])
            ended = await self._end_turn(stop)
            if ended is not None:
                return ended

    async def _end_turn(self, stop: _Stop | None) -> RunOutcome | None:
        """Pause for review, end the run, or None to go on with the next model turn."""
        # A stopped turn's proposals are never shown to anyone: closing it skips their calls.
        if stop is None and self.state.pending:
            return await self._pause()
        await self._close_turn(
            f"the run stopped before this call ran ({stop.error})" if stop else "not run"
        )
        if stop is None:
            return None
        if stop.kind == "breaker":
            return await self._finish("failed", stop.error)
        return await self._synthesize(stop.error)

    async def _after_cut_answer(self, cut: TurnCut, visible: str) -> RunOutcome | None:
        """A cut answer without calls is no final answer: another turn, if there is one."""
        state = self.state
        if state.iterations_used < state.iteration_budget:
            return None
        return await self._finish("incomplete", cut_error(cut), visible.strip())

    def _remember_text_protocol(self) -> None:
        """The text protocol got the call native tools did not: tell the provider, once."""
        self.state.protocol_step = "remembered"
        # Remembering only helps later runs: a failure to must not end this one.
        with contextlib.suppress(Exception):
            self.model.prefer_text_protocol()

    async def _final_answer(self, visible: str) -> RunOutcome:
        answer = visible.strip()
        if answer:
            return await self._finish("completed", None, answer)
        if self.state.used_tools:
            return await self._finish("incomplete", "empty final answer after tool use")
        return await self._finish("incomplete", "the model returned an empty answer")

    async def _synthesize(self, error: str) -> RunOutcome:
        """One tool-less call for an answer, plus the runtime's own account of the calls."""
        summary = self._calls_summary()
        text = ""
        if self.state.iterations_used < self.state.iteration_budget:
            instruction = Message(role="user", content=FINAL_SYNTHESIS_INSTRUCTION)
            try:
                turn = await self._call_model(offer_tools=False, extra=(instruction,))
            except _StopRun as failure:
                error = f"{error}; the final synthesis failed: {failure.error}"
            else:
                text, _ = self._read_turn(turn)
                text = text.strip()
                self.state.messages.extend([instruction, Message(role="assistant", content=text)])
        answer = f"{text}\n\n{summary}" if text else summary
        return await self._finish("incomplete", error, answer)

    async def _finish(self, outcome: Outcome, error: str | None, answer: str = "") -> Finished:
        state = self.state
        if state.turn_calls:
            reason = "the run was cancelled" if outcome == "cancelled" else (error or "not run")
            await self._close_turn(f"the run stopped before this call ran ({reason})")
        result = RunResult(
            run_id=state.run_id,
            outcome=outcome,
            answer=answer,
            error=error,
            iterations_used=state.iterations_used,
            iteration_budget=state.iteration_budget,
            edits=tuple(state.edits),
            tool_calls=tuple(
                ToolCallSummary(name=record.name, status=record.status) for record in state.call_log
            ),
        )
        await self.events.emit(RunEnded(**self._progress(), result=result))
        return Finished(result=result, state=state)

    async def _pause(self) -> Paused:
        state = self.state
        state.decisions = {}
        state.edits.extend(pending_record(change) for change in state.pending)
        await self.events.emit(PendingApproval(**self._progress(), pending=tuple(state.pending)))
        return Paused(
            state=state,
            iterations_used=state.iterations_used,
            iteration_budget=state.iteration_budget,
        )

    # --- code blocks and the check -------------------------------------------------------------

    async def _calls_from_blocks(self, visible: str) -> tuple[tuple[RawToolCall, ...], str | None]:
        can_edit = "edit_file" in self.tools
        return await block_calls(self.executor, self.state, visible, can_edit=can_edit)

    async def _check_first(self) -> None:
        report = await self._run_check()
        if report is not None:
            add_first_check(self.state, report)

    async def _check_edits(self) -> Finished | None:
        report = await self._run_check()
        if report is None or not add_check_after_edits(self.state, report):
            return None
        return await self._finish("completed", None, fixed_answer(self.state, report))

    async def _run_check(self) -> CheckReport | None:
        if self.checker is None:
            return None
        await self.events.emit(CheckStarted(**self._progress(), command=self.checker.command))
        try:
            return await self.checker.check(tuple(self.state.edits))
        except Exception as exc:  # the run goes on without the check's help
            return CheckReport(command=self.checker.command, output=_describe(exc))

    # --- model calls ----------------------------------------------------------------------------

    async def _call_model(self, *, offer_tools: bool, extra: Sequence[Message] = ()) -> ModelTurn:
        state = self.state
        if state.notices:  # appended, not sent on the side: the history stays append-only
            state.messages.append(Message(role="user", content="\n\n".join(state.notices)))
            state.notices = []
        state.iterations_used += 1
        await self.events.emit(ModelTurnStarted(**self._progress()))
        started = time.monotonic()
        try:
            try:
                turn = await self._chat(offer_tools, extra)
            except ToolsUnsupportedError:
                if not (offer_tools and state.native_tools):
                    raise
                # The provider remembers the refusal; this run goes on with the text protocol,
                # and the refused call does not count as an iteration.
                state.native_tools = False
                turn = await self._chat(offer_tools, extra)
        except asyncio.CancelledError:
            self.events.cancel_scheduled()  # a slow progress sink must not delay the cancel
            raise
        except ModelError as exc:
            raise _StopRun("failed", str(exc) or type(exc).__name__) from exc
        except Exception as exc:
            raise _StopRun("failed", _describe(exc)) from exc
        finally:
            await self.events.drain()
        state.turns.append(
            TurnRecord(
                iteration=state.iterations_used,
                usage=turn.usage,
                finish_reason=turn.finish_reason,
                duration_ms=(time.monotonic() - started) * 1000,
            )
        )
        return turn

    async def _chat(self, offer_tools: bool, extra: Sequence[Message]) -> ModelTurn:
        specs = [definition.spec for definition in self.tools.values()]
        native = self.state.native_tools
        offered = specs if offer_tools and native else []
        protocol, overhead = self._frame(specs, offered, native)
        history = fit_history(
            [*self.state.messages, *extra], history_budget(self.context_length) - overhead
        )
        messages = history if native else render_for_text_protocol(history, protocol)
        return await self.model.chat(messages, offered, on_delta=self._on_delta)

    def _frame(
        self, specs: Sequence[ToolSpec], offered: Sequence[ToolSpec], native: bool
    ) -> tuple[str, int]:
        """The text protocol's prompt ("" with native tools) and the tokens it and the offered
        tool schemas take from the history budget."""
        key = (native, bool(offered))
        if key not in self._framing:
            protocol = "" if native else protocol_prompt(specs)
            schemas = canonical_json([spec.model_dump() for spec in offered])
            self._framing[key] = (protocol, estimate_tokens(protocol) + estimate_tokens(schemas))
        return self._framing[key]

    def _on_delta(self, text: str) -> None:
        self.events.emit_soon(ModelDelta(**self._progress(), text=text))

    def _read_turn(self, turn: ModelTurn) -> tuple[str, tuple[RawToolCall, ...]]:
        """The visible text and the calls, by whichever protocol this run speaks. With native
        tools, calls the model wrote out as text count when it made none natively."""
        if self.state.native_tools and turn.tool_calls:
            return turn.text, turn.tool_calls
        parsed = parse_text_turn(turn.text, self.tools)
        if self.state.native_tools and not parsed.calls:
            return turn.text, ()
        return parsed.visible, (*turn.tool_calls, *parsed.calls)

    # --- a turn's calls -------------------------------------------------------------------------

    async def _dispatch_turn(self, calls: list[NormalizedCall], reason: str) -> _Stop | None:
        state = self.state
        state.turn_calls = [normalized.call for normalized in calls]
        state.turn_results = {}
        state.pending = []
        primaries = first_occurrences(
            [c.signature if c.error is None and c.skipped is None else None for c in calls]
        )
        stop: _Stop | None = None
        for index, (normalized, primary) in enumerate(zip(calls, primaries, strict=True)):
            call = normalized.call
            if normalized.skipped is not None:  # past the per-turn cap: paired, never run
                skipped = ToolOutcome(status="skipped", content=normalized.skipped)
                await self._record(call, skipped, _Timing.instant())
                if index % _YIELD_EVERY == 0:  # thousands of them must not stall the server
                    await asyncio.sleep(0)
                continue
            await self.events.emit(ToolRequested(**self._progress(), call=call))
            if stop is not None or primary is not None:
                continue  # skipped when the turn closes / answered from its first occurrence
            if normalized.error is not None or normalized.arguments is None:
                failure = ToolOutcome(status="failed", content=normalized.error or "invalid call")
                stop = await self._answer_call(
                    call, normalized.signature, failure, _Timing.instant()
                )
            elif repeat_blocked(state.repeats, normalized.signature, self.config.repeat_block_at):
                count = state.repeats[normalized.signature].count
                skipped = ToolOutcome(status="skipped", content=repeat_skip_note(call.name, count))
                await self._answer_call(
                    call, normalized.signature, skipped, _Timing.instant(), guard=False
                )
                stop = _Stop("repeat", repeat_error(call.name, self.config.repeat_block_at))
            elif not normalized.mutating:
                outcome, timing = await self._timed(
                    call.name, self.executor.execute(call.name, normalized.arguments)
                )
                stop = await self._answer_call(call, normalized.signature, outcome, timing)
            else:
                prepared = await self._prepare(call, normalized.arguments, reason)
                if prepared is not None:
                    stop = await self._answer_call(call, normalized.signature, *prepared)
        await self._answer_duplicates(
            {calls[i].call.id: calls[p].call.id for i, p in enumerate(primaries) if p is not None}
        )
        return stop

    async def _prepare(
        self, call: ToolCall, arguments: BaseModel, reason: str
    ) -> tuple[ToolOutcome, _Timing] | None:
        """Queue the change for review (None), or the outcome that refused it."""
        state = self.state
        edit_id = f"{state.run_id}-edit-{state.next_edit_number}"
        state.next_edit_number += 1
        started, clock = time.time(), time.monotonic()
        try:
            prepared = await self.executor.prepare(
                call.name, arguments, call_id=call.id, edit_id=edit_id, reason=reason
            )
        except Exception as exc:
            failure = ToolOutcome(
                status="failed", content=f"Error: {call.name} failed: {_describe(exc)}"
            )
            return failure, _Timing(started, (time.monotonic() - clock) * 1000)
        if isinstance(prepared, ToolOutcome):
            return prepared, _Timing(started, (time.monotonic() - clock) * 1000)
        # The runtime's ids are the ones decisions and results are keyed by.
        state.pending.append(prepared.model_copy(update={"call_id": call.id, "edit_id": edit_id}))
        return None

    async def _resolve_pending(self) -> _Stop | None:
        """Turn every decided change into its call's result, then run the guards in call order."""
        state = self.state
        resolved: dict[str, tuple[ToolOutcome, _Timing]] = {}
        for change in list(state.pending):
            outcome, timing, detail = await self._resolve(change, state.decisions[change.edit_id])
            resolved[change.call_id] = (outcome, timing)
            self._record_edit(change, outcome, detail)
        state.pending = []
        state.decisions = {}
        stop: _Stop | None = None
        signatures: dict[str, str] = {}
        for call in state.turn_calls:
            if call.id in resolved:
                signature = call_signature(call.name, call.arguments)
                signatures.setdefault(signature, call.id)
                tripped = await self._answer_call(call, signature, *resolved[call.id])
                stop = stop or tripped
        await self._answer_duplicates(
            {
                call.id: signatures[signature]
                for call in state.turn_calls
                if call.id not in state.turn_results
                and (signature := call_signature(call.name, call.arguments)) in signatures
            }
        )
        return stop

    async def _resolve(
        self, change: PreparedChange, decision: Decision
    ) -> tuple[ToolOutcome, _Timing, str]:
        if isinstance(decision, Approve):
            outcome, timing = await self._timed(change.tool, self.executor.apply(change))
            return outcome, timing, ""
        if isinstance(decision, Landed):
            return landed_outcome(change, decision), _Timing.instant(), decision.detail
        return rejected_outcome(decision), _Timing.instant(), decision.reason

    async def _answer_call(
        self,
        call: ToolCall,
        signature: str,
        outcome: ToolOutcome,
        timing: _Timing,
        *,
        guard: bool = True,
    ) -> _Stop | None:
        """Answer a call with its result: cap it, run both guards over it, log it, report it."""
        state = self.state
        outcome = outcome.model_copy(
            update={"content": cap_output(outcome.content, self.config.tool_output_cap)}
        )
        stop: _Stop | None = None
        if guard:
            state.repeats = record_repeat(state.repeats, signature, result_hash(outcome))
            count = state.repeats[signature].count
            if count >= self.config.repeat_warn_at:
                note = repeat_warning(call.name, count, self.config.repeat_block_at)
                outcome = outcome.model_copy(update={"content": f"{outcome.content}\n\n{note}"})
            state.failure_streaks = update_streaks(state.failure_streaks, signature, outcome)
            if breaker_tripped(state.failure_streaks, signature):
                stop = _Stop("breaker", breaker_error(call.name))
        await self._record(call, outcome, timing)
        return stop

    async def _answer_duplicates(self, primary_of: Mapping[str, str]) -> None:
        """Identical calls in one turn ran once; each duplicate id gets that result too."""
        for call in self.state.turn_calls:
            primary = primary_of.get(call.id)
            result = self.state.turn_results.get(primary) if primary else None
            if result is None:
                continue
            note = f"[Identical to call {primary} in this turn: it ran once; this is its result.]"
            copy = result.model_copy(update={"content": f"{result.content}\n\n{note}"})
            await self._record(call, copy, _Timing.instant())

    async def _record(self, call: ToolCall, outcome: ToolOutcome, timing: _Timing) -> None:
        self.state.turn_results[call.id] = outcome
        self.state.call_log.append(
            CallRecord(
                call_id=call.id,
                name=call.name,
                arguments=canonical_json(call.arguments)[:MAX_LOGGED_ARGUMENTS],
                status=outcome.status,
                digest=outcome.content[:MAX_DIGEST],
                iteration=self.state.iterations_used,
                started_at=timing.started_at,
                duration_ms=timing.duration_ms,
            )
        )
        await self.events.emit(ToolResulted(**self._progress(), call=call, outcome=outcome))

    def _record_edit(self, change: PreparedChange, outcome: ToolOutcome, detail: str) -> None:
        record = final_record(change, outcome, detail)
        self.state.edits = [
            record if existing.edit_id == change.edit_id else existing
            for existing in self.state.edits
        ]

    async def _close_turn(self, skip_reason: str) -> None:
        """Give every call of the turn its result and append them, in call order, to history."""
        state = self.state
        skipped = ToolOutcome(status="skipped", content=f"Not run: {skip_reason}.")
        for change in state.pending:
            if not any(e.edit_id == change.edit_id and e.status == "pending" for e in state.edits):
                continue
            decision = state.decisions.get(change.edit_id)
            if isinstance(decision, Landed):  # the editor already applied (or refused) it
                self._record_edit(change, landed_outcome(change, decision), decision.detail)
            else:
                self._record_edit(change, skipped, skip_reason)
        for call in state.turn_calls:
            if call.id not in state.turn_results:
                await self._record(call, skipped, _Timing.instant())
        # Results arrive out of order across a pause; the log lists them as the model called.
        order = {call.id: index for index, call in enumerate(state.turn_calls)}
        earlier = [r for r in state.call_log if r.call_id not in order]
        this_turn = sorted(
            (r for r in state.call_log if r.call_id in order), key=lambda r: order[r.call_id]
        )
        state.call_log = [*earlier, *this_turn]
        state.messages.extend(
            Message(
                role="tool",
                content=state.turn_results[call.id].content,
                tool_call_id=call.id,
                name=call.name,
            )
            for call in state.turn_calls
        )
        state.turn_calls = []
        state.turn_results = {}
        state.pending = []
        state.decisions = {}

    # --- helpers --------------------------------------------------------------------------------

    async def _timed(
        self, name: str, pending: Awaitable[ToolOutcome]
    ) -> tuple[ToolOutcome, _Timing]:
        """An executor call whose unexpected exception becomes that call's failed result."""
        started, clock = time.time(), time.monotonic()
        try:
            outcome = await pending
        except Exception as exc:
            outcome = ToolOutcome(
                status="failed", content=f"Error: {name} failed: {_describe(exc)}"
            )
        return outcome, _Timing(started, (time.monotonic() - clock) * 1000)

    def _id_allocator(self) -> IdAllocator:
        used = (call.id for message in self.state.messages for call in message.tool_calls)
        return IdAllocator.for_history(used, self.state.next_call_number)

    def _calls_summary(self) -> str:
        calls = {call.id: call for message in self.state.messages for call in message.tool_calls}
        executed: list[str] = []
        skipped: list[str] = []
        for record in self.state.call_log:
            call = calls.get(record.call_id)
            label = describe_call(call) if call is not None else record.name
            if record.status == "skipped":
                skipped.append(label)
            else:
                executed.append(label if record.status == "ok" else f"{label} ({record.status})")
        return (
            f"Tool calls executed: {', '.join(executed) or 'none'}; "
            f"skipped: {', '.join(skipped) or 'none'}."
        )

    def _progress(self) -> _Progress:
        return _Progress(
            run_id=self.state.run_id,
            iterations_used=self.state.iterations_used,
            iteration_budget=self.state.iteration_budget,
        )


def _describe(exc: BaseException) -> str:
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__
