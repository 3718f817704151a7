"""One model call of a run, and its answer read (`answers.read_turn`).

What a turn offers, which readers listen and its system message are the reader table's row for
it (answers/table.py). The history is fitted to the model's context (less what the text
protocol's prompt and the offered tool schemas take) and rendered for the text protocol when
the run speaks it; each call is recorded as a turn. A provider that refuses native tools moves
the run to the text protocol without costing an iteration. Any other failure raises `Stop`:
the run ends `failed`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence

from rune_lsp.answers import Answer, Row, TurnReading, read_turn, system_text
from rune_lsp.answers.calls.prompts import protocol_prompt
from rune_lsp.loop.context_budget import estimate_tokens, fit_history, history_budget
from rune_lsp.loop.events import EventEmitter, ModelDelta, ModelTurnStarted, progress_of
from rune_lsp.loop.fallback import render_for_text_protocol
from rune_lsp.loop.messages import Message, ModelTurn, RawToolCall, ToolSpec
from rune_lsp.loop.normalize import canonical_json
from rune_lsp.loop.ports import (
    Model,
    ModelError,
    ToolDefinition,
    ToolExecutor,
    ToolsUnsupportedError,
)
from rune_lsp.loop.records import TurnRecord
from rune_lsp.loop.state import RunState
from rune_lsp.loop.stop import Stop, describe
from rune_lsp.loop.turn_cuts import blocks_readable


class ModelCalls:
    """The model calls of one run (or one resumption of it).

    `tools` and `context_length` are set once the run has loaded the model's capabilities.
    """

    def __init__(
        self,
        model: Model,
        state: RunState,
        events: EventEmitter,
        executor: ToolExecutor,
        guidance: str = "",
    ) -> None:
        self.model = model
        self.state = state
        self.events = events
        self.executor = executor
        self.guidance = guidance  # the front end's own, before the row's (LoopConfig)
        self.tools: Mapping[str, ToolDefinition] = {}
        self.context_length: int | None = None
        # (native, tools offered) -> the protocol prompt and the tokens the tools take up; the
        # same every turn of a run, and costly to measure (the schemas as JSON).
        self._framing: dict[tuple[bool, bool], tuple[str, int]] = {}

    async def ask(
        self,
        row: Row,
        extra: Sequence[Message] = (),
        *,
        history: Sequence[Message] | None = None,
        temperature: float | None = None,
    ) -> ModelTurn:
        """One model call of `row`'s kind on the run's history plus `extra`; `history` replaces
        the run's (a candidate fix's request, loop/candidates.py: the run's history is left as
        it is), and `temperature` the run's sampling."""
        state = self.state
        # Appended, not sent on the side: the history stays append-only.
        if state.notices and history is None:
            state.messages.append(Message(role="user", content="\n\n".join(state.notices)))
            state.notices = []
        state.iterations_used += 1
        await self.events.emit(ModelTurnStarted(**progress_of(state)))
        started = time.monotonic()
        try:
            try:
                turn = await self._chat(row, extra, history, temperature)
            except ToolsUnsupportedError:
                if not (row.offers_tools and state.native_tools):
                    raise
                # The provider remembers the refusal; this run goes on with the text protocol,
                # and the refused call does not count as an iteration.
                state.native_tools = False
                turn = await self._chat(row, extra, history, temperature)
        except asyncio.CancelledError:
            self.events.cancel_scheduled()  # a slow progress sink must not delay the cancel
            raise
        except ModelError as exc:
            raise Stop("failed", str(exc) or type(exc).__name__) from exc
        except Exception as exc:
            raise Stop("failed", describe(exc)) from exc
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

    async def read(self, row: Row, turn: ModelTurn) -> TurnReading[RawToolCall]:
        """What the turn says, read by the readers `row` lists (answers.read_turn); code blocks
        are read as code of the run's target when the run may edit it, or of a file the task
        showed beside it."""
        editable = self.state.target if "edit_file" in self.tools else None
        answer = Answer(
            text=turn.text,
            native=turn.tool_calls,
            native_protocol=self.state.native_tools,
            blocks_readable=blocks_readable(turn.cut),
        )
        return await read_turn(
            row,
            answer,
            offered=self.tools.keys(),
            target=editable,
            fetch=self._current,
            shown=self.state.beside,
        )

    async def _current(self, path: str) -> str | None:
        try:
            return await self.executor.current_text(path)
        except Exception:  # unreadable: its blocks propose nothing, the answer stands
            return None

    async def _chat(
        self,
        row: Row,
        extra: Sequence[Message],
        history: Sequence[Message] | None,
        temperature: float | None,
    ) -> ModelTurn:
        specs = [definition.spec for definition in self.tools.values()] if row.offers_tools else []
        native = self.state.native_tools
        offered = specs if native else []
        protocol, overhead = self._frame(specs, offered, native)
        sent = fit_history(
            [*self._with_system(row, history), *extra],
            history_budget(self.context_length) - overhead,
        )
        messages = sent if native else render_for_text_protocol(sent, protocol)
        return await self.model.chat(
            messages, offered, on_delta=self._on_delta, temperature=temperature
        )

    def _with_system(self, row: Row, history: Sequence[Message] | None = None) -> list[Message]:
        """The history (the run's, or `history`) with the system message of `row`'s kind of
        turn in front."""
        messages = list(self.state.messages if history is None else history)
        system = Message(role="system", content=system_text(row.kind, self.guidance))
        return [system, *messages[1:]] if messages and messages[0].role == "system" else messages

    def _frame(
        self, specs: Sequence[ToolSpec], offered: Sequence[ToolSpec], native: bool
    ) -> tuple[str, int]:
        """The text protocol's prompt ("" with native tools) and the tokens it and the offered
        tool schemas take from the history budget."""
        key = (native, bool(specs))
        if key not in self._framing:
            protocol = "" if native or not specs else protocol_prompt(specs)
            schemas = canonical_json([spec.model_dump() for spec in offered])
            self._framing[key] = (protocol, estimate_tokens(protocol) + estimate_tokens(schemas))
        return self._framing[key]

    def _on_delta(self, text: str) -> None:
        self.events.emit_soon(ModelDelta(**progress_of(self.state), text=text))
