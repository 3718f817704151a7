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

Each stop is one `Stop` (loop/stop.py), raised where it is found and turned into the run's
result here alone. A turn's calls are handled by `loop/turn.py`, each model call by
`loop/model_call.py`, the check command's runs and the candidate search by `loop/run_checks.py`,
the answer after a guard stop by `loop/synthesis.py`. Mutating calls pause the run: `Paused`
carries the JSON round-trippable `RunState`, and any `AgentLoop` (also in a new process)
continues it with `resume` once every change in `state.turn` is decided.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable, Sequence

from rune_lsp.answers import ROWS, TurnReading, system_text, turn_kind
from rune_lsp.loop.candidates import retry_temperature, verifies
from rune_lsp.loop.config import LoopConfig, LoopConfigError
from rune_lsp.loop.events import EventEmitter, EventSink, RunEnded, progress_of
from rune_lsp.loop.messages import Message, RawToolCall, TurnCut
from rune_lsp.loop.model_call import ModelCalls
from rune_lsp.loop.normalize import IdAllocator, normalize_calls
from rune_lsp.loop.ports import (
    Checker,
    Model,
    ModelError,
    ToolDefinition,
    ToolExecutor,
)
from rune_lsp.loop.proposals import block_answer, block_calls, landed_edits
from rune_lsp.loop.protocol_choice import take_step
from rune_lsp.loop.records import Outcome, RunResult, ToolCallSummary
from rune_lsp.loop.resample import first_answer_stands, resample_temperature
from rune_lsp.loop.run_checks import RunChecks
from rune_lsp.loop.state import CheckReport, Finished, Paused, RunOutcome, RunState
from rune_lsp.loop.stop import Stop, describe
from rune_lsp.loop.synthesis import synthesized
from rune_lsp.loop.turn import Turn
from rune_lsp.loop.turn_cuts import cut_error, cut_notice, kept_text
from rune_lsp.text_clip import shorten

__all__ = [
    "AgentLoop",
    "LoopConfig",
    "LoopConfigError",
    "ResumeError",
]

#: The model's words shown to the reviewer next to a proposed change.
MAX_REASON = 2_000


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
        beside: tuple[str, ...] = (),
        checker: Checker | None = None,
        history: Sequence[Message] = (),
        first_check: CheckReport | None = None,
    ) -> RunOutcome:
        """Start a run on `task`, the user prompt the front end composed.

        `target`: the file the run is asked to change (a code block in an answer is read as an
        edit of it). `beside`: the files the task showed beside the target as where the bug may
        be instead (a failing test's module under test and the files it uses). `checker`: the
        check command, run before the first turn and after edits.
        `history`: an earlier run's conversation as its model saw it (without its system
        message), which this run continues with `task` as the user's next message (a follow-up
        turn); the run still has its own budget and guards. `first_check`: the check's report
        when the front end ran it just before the run (its output composed `task`), used as the
        check before the first turn instead of running it again.
        """
        state = RunState(
            run_id=run_id or uuid.uuid4().hex,
            iteration_budget=self.config.max_iterations,
            messages=[
                # Stored as the `tools` turn's; each request carries its own turn's
                # (ModelCalls._with_system, answers/table.py).
                Message(role="system", content=system_text("tools", self.config.system_prompt)),
                *(message for message in history if message.role != "system"),
                Message(role="user", content=task),
            ],
            target=target,
            beside=beside,
        )
        return await _Run(self, state, checker).start(first_check)

    async def resume(self, state: RunState, *, checker: Checker | None = None) -> RunOutcome:
        """Continue a paused run once every pending change has a decision.

        The state is continued in place and returned in the outcome.
        """
        if not state.turn.pending:
            raise ResumeError(f"run {state.run_id} has no pending changes to resume")
        undecided = [change.edit_id for change in state.turn.undecided]
        if undecided:
            raise ResumeError(
                f"run {state.run_id} cannot resume: {len(undecided)} pending change(s) "
                f"without a decision: {', '.join(undecided)}"
            )
        return await _Run(self, state, checker).resume()


# --- one run ------------------------------------------------------------------------------------


class _Run:
    """The mutable context of one run (or one resumption of it)."""

    def __init__(self, loop: AgentLoop, state: RunState, checker: Checker | None = None) -> None:
        self.checker = checker
        self.model = loop.model
        self.executor = loop.tools
        self.config = loop.config
        self.state = state
        self.events = EventEmitter(loop.on_event)
        self.turn = Turn(state, loop.tools, loop.config, self.events)
        self.model_calls = ModelCalls(
            loop.model, state, self.events, loop.tools, loop.config.system_prompt
        )
        self.tools: dict[str, ToolDefinition] = {}
        self.adaptive = False
        self.checks = RunChecks(
            state=state,
            config=loop.config,
            checker=checker,
            executor=loop.tools,
            model_calls=self.model_calls,
            events=self.events,
            new_ids=self._id_allocator,
            reason_of=lambda visible: shorten(visible, MAX_REASON),
        )

    # --- entry points ---------------------------------------------------------------------------

    async def start(self, first_check: CheckReport | None = None) -> RunOutcome:
        return await self._guarded(lambda: self._start(first_check))

    async def resume(self) -> RunOutcome:
        return await self._guarded(self._resume)

    async def _start(self, first_check: CheckReport | None) -> RunOutcome:
        await self._load(fresh=True)
        await self.checks.first(first_check)
        return await self._drive()

    async def _resume(self) -> RunOutcome:
        await self._load(fresh=False)
        landed = landed_edits(self.state)
        answered = block_answer(self.state) if self.checker is None else None
        await self.turn.resolve()
        await self.turn.close("not run")
        if answered is not None and answered.stands(self.state):  # no check: nothing to hear
            return await self._finish("completed", None, answered.text)
        ended = await self._check_edits() if landed_edits(self.state) != landed else None
        return ended if ended is not None else await self._drive()

    async def _guarded(self, body: Callable[[], Awaitable[RunOutcome]]) -> RunOutcome:
        try:
            try:
                return await body()
            except Stop as stop:
                return await self._stopped(stop)
        except asyncio.CancelledError:
            # Returning (not re-raising) is the contract: the caller gets a typed result.
            return await self._finish("cancelled", "the run was cancelled")

    async def _stopped(self, stop: Stop) -> Finished:
        """A stopped turn's proposals are never shown to anyone: closing it skips their calls."""
        if not stop.synthesize:
            return await self._finish(stop.outcome, stop.error)
        await self._close_open_turn(stop.error)
        return await self._synthesize(stop.outcome, stop.error)

    async def _load(self, *, fresh: bool) -> None:
        try:
            capabilities = await self.model.capabilities()
        except ModelError as exc:
            raise Stop("failed", str(exc)) from exc
        except Exception as exc:
            raise Stop("failed", describe(exc)) from exc
        self.model_calls.context_length = capabilities.context_length
        self.adaptive = capabilities.adaptive_protocol
        if fresh:
            self.state.native_tools = capabilities.native_tools
        try:
            definitions = list(self.executor.definitions())
        except Exception as exc:
            raise Stop("failed", f"tool definitions failed: {describe(exc)}") from exc
        self.tools = {definition.spec.name: definition for definition in definitions}
        self.model_calls.tools = self.tools

    # --- the loop -------------------------------------------------------------------------------

    async def _drive(self) -> RunOutcome:
        state = self.state
        temperature: float | None = None  # the provider's own, but right after a block note
        resampled = 0  # times the first request was asked again (loop/resample.py)
        kept: str | None = None  # the first answer, the code as it is, while asking again
        while True:
            if state.iterations_used >= state.iteration_budget:
                raise Stop(
                    "failed",
                    f"iteration limit reached ({state.iterations_used}/{state.iteration_budget}) "
                    "before a final answer",
                )
            kind = turn_kind(
                self.config.first_turn,
                first=state.iterations_used == resampled,
                fixes_a_file=state.target is not None and "edit_file" in self.tools,
            )
            row = ROWS[kind]
            turn = await self.model_calls.ask(row, temperature=temperature)
            temperature = None
            reading = await self.model_calls.read(row, turn)
            visible = reading.visible
            if turn.cut is not None:  # the model hears why next turn; the history keeps a head
                state.notices.append(cut_notice(turn.cut, blocks=state.target is not None))
                visible = kept_text(visible)
            again = None
            if turn.cut is None and not reading.native and not reading.written:
                again = resample_temperature(
                    state,
                    reading.code,
                    kind=kind,
                    base=self.config.temperature,
                    resampled=resampled,
                )
            if again is not None:  # the code sent back as it is: the same request, wider
                resampled, temperature, kept = resampled + 1, again, kept or visible
                continue
            raw_calls, note = self._calls_of(reading, visible, code_first=kind == "code_first")
            if kept is not None and not raw_calls and first_answer_stands(state):
                # No note, no turn more; with a failing check this last answer hears its note.
                state.messages.append(Message(role="assistant", content=kept))
                return await self._final_answer(kept)
            kept = None
            if not raw_calls:
                state.messages.append(Message(role="assistant", content=visible))
                if turn.cut is not None:
                    ended = await self._after_cut_answer(turn.cut, visible)
                    if ended is not None:
                        return ended
                    continue
                if note is not None:  # told why its code block was not taken; it tries again
                    state.messages.append(Message(role="user", content=note))
                    temperature = retry_temperature(self.config.temperature, state.block_notes)
                    continue
                # Nothing read at all (answers.read_turn): no call, native or written as text,
                # no block-derived edit and no note about a block. A turn whose row coaches
                # (answers/table.py) gets the protocol choice's corrective turns.
                tools = list(self.tools)
                if row.coaches and take_step(state, visible, adaptive=self.adaptive, tools=tools):
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
            await self.turn.dispatch(
                calls, reason=shorten(visible, MAX_REASON), from_block=bool(reading.edits)
            )
            if state.turn.pending:
                await self.checks.candidates(self.tools)
                return await self._pause()
            await self.turn.close("not run")

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

    async def _synthesize(self, outcome: Outcome, error: str) -> Finished:
        """One tool-less call for an answer, plus the runtime's own account of the calls."""
        answer, error = await synthesized(self.model_calls, self.state, error)
        return await self._finish(outcome, error, answer)

    async def _finish(self, outcome: Outcome, error: str | None, answer: str = "") -> Finished:
        state = self.state
        await self._close_open_turn(
            "the run was cancelled" if outcome == "cancelled" else (error or "not run")
        )
        result = RunResult(
            run_id=state.run_id,
            outcome=outcome,
            answer=answer,
            error=error,
            iterations_used=state.iterations_used,
            iteration_budget=state.iteration_budget,
            edits=tuple(state.edits),
            tool_calls=tuple(ToolCallSummary.of(record) for record in state.call_log),
        )
        await self.events.emit(RunEnded(**progress_of(self.state), result=result))
        return Finished(result=result, state=state)

    async def _close_open_turn(self, reason: str) -> None:
        if self.turn.is_open:
            await self.turn.close(f"the run stopped before this call ran ({reason})")

    async def _pause(self) -> Paused:
        state = self.state
        await self.turn.pause()
        return Paused(
            state=state,
            iterations_used=state.iterations_used,
            iteration_budget=state.iteration_budget,
        )

    # --- code blocks and the check -------------------------------------------------------------

    def _calls_of(
        self, reading: TurnReading[RawToolCall], visible: str, *, code_first: bool
    ) -> tuple[tuple[RawToolCall, ...], str | None]:
        """The calls to dispatch (native, written as text, or its code blocks' edits), or a
        note about its code blocks."""
        written = tuple(RawToolCall(name=c.name, arguments=c.arguments) for c in reading.written)
        if reading.native or written:
            return (*reading.native, *written), None
        # With candidate fixes checked, the current code sent back is a candidate that changed
        # nothing: it may be asked again as often as there are candidates left.
        checked = verifies(self.config, self.checks.checker)
        return block_calls(
            self.state,
            reading.code,
            visible,
            code_first=code_first,
            unchanged_notes=self.config.candidates - 1 if checked else None,
        )

    async def _check_edits(self) -> Finished | None:
        answer = await self.checks.after_edits()
        return None if answer is None else await self._finish("completed", None, answer)

    # --- helpers --------------------------------------------------------------------------------

    def _id_allocator(self) -> IdAllocator:
        used = (call.id for message in self.state.messages for call in message.tool_calls)
        return IdAllocator.for_history(used, self.state.next_call_number)
