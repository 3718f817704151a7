"""The model turn in progress: its calls dispatched, its pending changes resolved, the turn closed.

Every call of a turn is answered with exactly one result, also when it is unknown, malformed,
denied or skipped: read-only calls run at once, mutating calls are prepared (nothing written)
and wait in `RunState.turn` for review, identical calls run once and the copies get that
result. The guards (circuit breaker, exact repeats) run over every result; one that trips
finishes the turn's bookkeeping and then raises `Stop` (loop/stop.py), which ends the run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass

from pydantic import BaseModel

from rune_lsp.loop.config import LoopConfig
from rune_lsp.loop.context_budget import cap_output
from rune_lsp.loop.decisions import (
    final_record,
    landed_outcome,
    pending_record,
    rejected_outcome,
)
from rune_lsp.loop.events import (
    EventEmitter,
    PendingApproval,
    ToolRequested,
    ToolResulted,
    progress_of,
)
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
from rune_lsp.loop.messages import Message, ToolCall
from rune_lsp.loop.normalize import NormalizedCall, call_signature, canonical_json
from rune_lsp.loop.ports import ToolExecutor
from rune_lsp.loop.records import CallRecord
from rune_lsp.loop.state import (
    Approve,
    Decision,
    Landed,
    PreparedChange,
    RunState,
    ToolOutcome,
    TurnState,
)
from rune_lsp.loop.stop import Stop, describe
from rune_lsp.text_clip import shorten

#: CallRecord bounds: a receipt line, not a copy of the output.
MAX_LOGGED_ARGUMENTS = 500
MAX_DIGEST = 200
#: The tool whose whole result is kept in the record: the user judges a command by its output.
COMMAND_TOOL = "run_command"
#: Calls skipped past the per-turn cap between two yields to the event loop.
_YIELD_EVERY = 256


@dataclass(frozen=True)
class Timing:
    started_at: float
    duration_ms: float

    @classmethod
    def instant(cls) -> Timing:
        """For results that involved no work (errors found by the runtime, copies, skips)."""
        return cls(time.time(), 0.0)


class Turn:
    """Works on `state.turn`, the turn in progress of one run (or one resumption of it)."""

    def __init__(
        self, state: RunState, executor: ToolExecutor, config: LoopConfig, events: EventEmitter
    ) -> None:
        self.state = state
        self.executor = executor
        self.config = config
        self.events = events

    @property
    def is_open(self) -> bool:
        return bool(self.state.turn.calls)

    async def dispatch(
        self, calls: list[NormalizedCall], reason: str, *, from_block: bool = False
    ) -> None:
        """Start the turn of `calls`: run, prepare or answer each in the model's order.

        Raises `Stop` (after every call has its result or waits for review) when a guard
        tripped: the rest of the turn is then skipped when it closes.
        """
        state = self.state
        state.turn = TurnState(
            calls=[normalized.call for normalized in calls], from_block=from_block
        )
        primaries = first_occurrences(
            [c.signature if c.error is None and c.skipped is None else None for c in calls]
        )
        stop: Stop | None = None
        for index, (normalized, primary) in enumerate(zip(calls, primaries, strict=True)):
            call = normalized.call
            if normalized.skipped is not None:  # past the per-turn cap: paired, never run
                skipped = ToolOutcome(status="skipped", content=normalized.skipped)
                await self._record(call, skipped, Timing.instant())
                if index % _YIELD_EVERY == 0:  # thousands of them must not stall the server
                    await asyncio.sleep(0)
                continue
            await self.events.emit(ToolRequested(**progress_of(state), call=call))
            if stop is not None or primary is not None:
                continue  # skipped when the turn closes / answered from its first occurrence
            if normalized.error is not None or normalized.arguments is None:
                failure = ToolOutcome(status="failed", content=normalized.error or "invalid call")
                stop = await self._answer(call, normalized.signature, failure, Timing.instant())
            elif repeat_blocked(state.repeats, normalized.signature, self.config.repeat_block_at):
                count = state.repeats[normalized.signature].count
                skipped = ToolOutcome(status="skipped", content=repeat_skip_note(call.name, count))
                await self._answer(
                    call, normalized.signature, skipped, Timing.instant(), guard=False
                )
                error = repeat_error(call.name, self.config.repeat_block_at)
                stop = Stop("incomplete", error, synthesize=True)
            elif not normalized.mutating:
                outcome, timing = await timed(
                    call.name, self.executor.execute(call.name, normalized.arguments)
                )
                stop = await self._answer(call, normalized.signature, outcome, timing)
            else:
                prepared = await self._prepare(call, normalized.arguments, reason)
                if prepared is not None:
                    stop = await self._answer(call, normalized.signature, *prepared)
        await self._answer_duplicates(
            {calls[i].call.id: calls[p].call.id for i, p in enumerate(primaries) if p is not None}
        )
        if stop is not None:
            raise stop

    async def pause(self) -> None:
        """Open the turn's prepared changes for review: recorded as pending, announced."""
        state = self.state
        state.edits.extend(pending_record(change) for change in state.turn.pending)
        await self.events.emit(
            PendingApproval(**progress_of(state), pending=tuple(state.turn.pending))
        )

    async def resolve(self) -> None:
        """Turn every decided change into its call's result, then run the guards in call order.

        Raises `Stop` (after every decided call has its result) when a guard tripped.
        """
        turn = self.state.turn
        resolved: dict[str, tuple[ToolOutcome, Timing]] = {}
        for change in list(turn.pending):
            decision = turn.decisions[change.edit_id]
            outcome, timing, detail = await self._resolve(change, decision)
            resolved[change.call_id] = (outcome, timing)
            self._record_edit(change, outcome, detail, decision)
        stop: Stop | None = None
        signatures: dict[str, str] = {}
        for call in turn.calls:
            if call.id in resolved:
                signature = call_signature(call.name, call.arguments)
                signatures.setdefault(signature, call.id)
                tripped = await self._answer(call, signature, *resolved[call.id])
                stop = stop or tripped
        await self._answer_duplicates(
            {
                call.id: signatures[signature]
                for call in turn.calls
                if call.id not in turn.results
                and (signature := call_signature(call.name, call.arguments)) in signatures
            }
        )
        if stop is not None:
            raise stop

    async def close(self, skip_reason: str) -> None:
        """Give every call of the turn its result and append them, in call order, to history."""
        state = self.state
        turn = state.turn
        skipped = ToolOutcome(status="skipped", content=f"Not run: {skip_reason}.")
        for change in turn.pending:
            if not any(e.edit_id == change.edit_id and e.status == "pending" for e in state.edits):
                continue  # resolved already, or never shown (a stopped turn's proposal)
            decision = turn.decisions.get(change.edit_id)
            if isinstance(decision, Landed):  # the editor already applied (or refused) it
                self._record_edit(
                    change, landed_outcome(change, decision), decision.detail, decision
                )
            else:
                self._record_edit(change, skipped, skip_reason)
        for call in turn.calls:
            if call.id not in turn.results:
                await self._record(call, skipped, Timing.instant())
        # Results arrive out of order across a pause; the log lists them as the model called.
        order = {call.id: index for index, call in enumerate(turn.calls)}
        earlier = [r for r in state.call_log if r.call_id not in order]
        this_turn = sorted(
            (r for r in state.call_log if r.call_id in order), key=lambda r: order[r.call_id]
        )
        state.call_log = [*earlier, *this_turn]
        state.messages.extend(
            Message(
                role="tool",
                content=turn.results[call.id].content,
                tool_call_id=call.id,
                name=call.name,
            )
            for call in turn.calls
        )
        state.turn = TurnState()

    # --- one call -------------------------------------------------------------------------------

    async def _prepare(
        self, call: ToolCall, arguments: BaseModel, reason: str
    ) -> tuple[ToolOutcome, Timing] | None:
        """Queue the change for review (None), or the outcome that refused it."""
        state = self.state
        edit_id = state.new_edit_id()
        started, clock = time.time(), time.monotonic()
        try:
            prepared = await self.executor.prepare(
                call.name, arguments, call_id=call.id, edit_id=edit_id, reason=reason
            )
        except Exception as exc:
            failure = ToolOutcome(
                status="failed", content=f"Error: {call.name} failed: {describe(exc)}"
            )
            return failure, Timing(started, (time.monotonic() - clock) * 1000)
        if isinstance(prepared, ToolOutcome):
            return prepared, Timing(started, (time.monotonic() - clock) * 1000)
        # The runtime's ids are the ones decisions and results are keyed by.
        change = prepared.model_copy(update={"call_id": call.id, "edit_id": edit_id})
        state.turn.pending.append(change)
        return None

    async def _resolve(
        self, change: PreparedChange, decision: Decision
    ) -> tuple[ToolOutcome, Timing, str]:
        if isinstance(decision, Approve):
            outcome, timing = await timed(change.tool, self.executor.apply(change))
            return outcome, timing, ""
        if isinstance(decision, Landed):
            return landed_outcome(change, decision), Timing.instant(), decision.detail
        return rejected_outcome(decision), Timing.instant(), decision.reason

    async def _answer(
        self,
        call: ToolCall,
        signature: str,
        outcome: ToolOutcome,
        timing: Timing,
        *,
        guard: bool = True,
    ) -> Stop | None:
        """Answer a call with its result: cap it, run both guards over it, log it, report it."""
        state = self.state
        outcome = outcome.model_copy(
            update={"content": cap_output(outcome.content, self.config.tool_output_cap)}
        )
        stop: Stop | None = None
        if guard:
            state.repeats = record_repeat(state.repeats, signature, result_hash(outcome))
            count = state.repeats[signature].count
            if count >= self.config.repeat_warn_at:
                note = repeat_warning(call.name, count, self.config.repeat_block_at)
                outcome = outcome.model_copy(update={"content": f"{outcome.content}\n\n{note}"})
            state.failure_streaks = update_streaks(state.failure_streaks, signature, outcome)
            if breaker_tripped(state.failure_streaks, signature):
                stop = Stop("failed", breaker_error(call.name))
        await self._record(call, outcome, timing)
        return stop

    async def _answer_duplicates(self, primary_of: Mapping[str, str]) -> None:
        """Identical calls in one turn ran once; each duplicate id gets that result too."""
        turn = self.state.turn
        for call in turn.calls:
            primary = primary_of.get(call.id)
            result = turn.results.get(primary) if primary else None
            if result is None:
                continue
            note = f"[Identical to call {primary} in this turn: it ran once; this is its result.]"
            copy = result.model_copy(update={"content": f"{result.content}\n\n{note}"})
            await self._record(call, copy, Timing.instant())

    async def _record(self, call: ToolCall, outcome: ToolOutcome, timing: Timing) -> None:
        state = self.state
        state.turn.results[call.id] = outcome
        command = call.arguments.get("command") if call.name == COMMAND_TOOL else None
        is_command = isinstance(command, str)
        state.call_log.append(
            CallRecord(
                call_id=call.id,
                name=call.name,
                arguments=shorten(canonical_json(call.arguments), MAX_LOGGED_ARGUMENTS),
                status=outcome.status,
                digest=shorten(outcome.content, MAX_DIGEST),
                iteration=state.iterations_used,
                started_at=timing.started_at,
                duration_ms=timing.duration_ms,
                # What the model read, already bounded by `cap_output` in `_answer`.
                command=command if is_command else None,
                output=outcome.content if is_command else None,
            )
        )
        await self.events.emit(ToolResulted(**progress_of(state), call=call, outcome=outcome))

    def _record_edit(
        self,
        change: PreparedChange,
        outcome: ToolOutcome,
        detail: str,
        decision: Decision | None = None,
    ) -> None:
        record = final_record(change, outcome, detail, decision)
        self.state.edits = [
            record if existing.edit_id == change.edit_id else existing
            for existing in self.state.edits
        ]


async def timed(name: str, pending: Awaitable[ToolOutcome]) -> tuple[ToolOutcome, Timing]:
    """An executor call whose unexpected exception becomes that call's failed result."""
    started, clock = time.time(), time.monotonic()
    try:
        outcome = await pending
    except Exception as exc:
        outcome = ToolOutcome(status="failed", content=f"Error: {name} failed: {describe(exc)}")
    return outcome, Timing(started, (time.monotonic() - clock) * 1000)
