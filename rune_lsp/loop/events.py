"""The events a run streams out, and their delivery to an optional sink (sync or async).

Progress is best effort: a sink that raises is logged and ignored, never allowed to end a run.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Literal, TypedDict

from pydantic import BaseModel, ConfigDict

from rune_lsp.loop.messages import ToolCall, describe_call
from rune_lsp.loop.records import RunResult
from rune_lsp.loop.state import PreparedChange, RunState, ToolOutcome


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_id: str
    iterations_used: int
    iteration_budget: int

    @property
    def step(self) -> str:
        return f"step {self.iterations_used}/{self.iteration_budget}"


class ModelTurnStarted(_Event):
    kind: Literal["model_turn_started"] = "model_turn_started"


class ModelDelta(_Event):
    """A streamed piece of the visible answer (for progress, not for the transcript)."""

    kind: Literal["model_delta"] = "model_delta"
    text: str


class ToolRequested(_Event):
    kind: Literal["tool_requested"] = "tool_requested"
    call: ToolCall


class ToolResulted(_Event):
    kind: Literal["tool_result"] = "tool_result"
    call: ToolCall
    outcome: ToolOutcome


class PendingApproval(_Event):
    kind: Literal["pending_approval"] = "pending_approval"
    pending: tuple[PreparedChange, ...]


class CheckStarted(_Event):
    """The runner runs `checkCommand` for the loop (before the first turn, after edits)."""

    kind: Literal["check_started"] = "check_started"
    command: str
    # Set when it checks candidate fix N in a scratch copy (loop/candidates.py).
    candidate: int | None = None


class TargetMoved(_Event):
    """A run on a failing test goes on in the module the test points to (runner/context.py
    `module_under_test`): the file it now fixes, as the model sees it."""

    kind: Literal["target_moved"] = "target_moved"
    path: str


class RunEnded(_Event):
    kind: Literal["terminal"] = "terminal"
    result: RunResult


RunEvent = (
    ModelTurnStarted
    | ModelDelta
    | ToolRequested
    | ToolResulted
    | PendingApproval
    | CheckStarted
    | TargetMoved
    | RunEnded
)


def step_line(event: RunEvent) -> str | None:
    """`step N/M · what happens now` for the moments every front end reports alike (a model
    turn, a tool call, a check); None for the others, which each front end words itself."""
    if isinstance(event, ModelTurnStarted):
        return f"{event.step} · asking the model"
    if isinstance(event, ToolRequested):
        return f"{event.step} · {describe_call(event.call)}"
    if isinstance(event, CheckStarted):
        where = (
            "" if event.candidate is None else f" on candidate fix {event.candidate} (scratch copy)"
        )
        return f"{event.step} · running the check{where}: {event.command}"
    if isinstance(event, TargetMoved):
        return f"{event.step} · the failing test points to {event.path}: the fix goes there"
    return None


class Progress(TypedDict):
    """The fields every event carries."""

    run_id: str
    iterations_used: int
    iteration_budget: int


def progress_of(state: RunState) -> Progress:
    return Progress(
        run_id=state.run_id,
        iterations_used=state.iterations_used,
        iteration_budget=state.iteration_budget,
    )


EventSink = Callable[[RunEvent], Awaitable[None] | None]

log = logging.getLogger(__name__)


class EventEmitter:
    def __init__(self, sink: EventSink | None) -> None:
        self._sink = sink
        self._scheduled: set[asyncio.Future[None]] = set()

    async def emit(self, event: RunEvent) -> None:
        pending = self._call(event)
        if pending is not None:
            try:
                await pending
            except Exception:
                log.exception("run event sink failed on %s", event.kind)

    def emit_soon(self, event: RunEvent) -> None:
        """For sync callbacks (model deltas): an async sink's work is awaited by `drain`."""
        pending = self._call(event)
        if pending is not None:
            future = asyncio.ensure_future(pending)
            self._scheduled.add(future)
            future.add_done_callback(self._done)

    async def drain(self) -> None:
        if self._scheduled:
            await asyncio.gather(*self._scheduled, return_exceptions=True)

    def cancel_scheduled(self) -> None:
        for future in self._scheduled:
            future.cancel()

    def _call(self, event: RunEvent) -> Awaitable[None] | None:
        if self._sink is None:
            return None
        try:
            result = self._sink(event)
        except Exception:
            log.exception("run event sink failed on %s", event.kind)
            return None
        return result if inspect.isawaitable(result) else None

    def _done(self, future: asyncio.Future[None]) -> None:
        self._scheduled.discard(future)
        if not future.cancelled() and future.exception() is not None:
            log.error("run event sink failed: %s", future.exception())
