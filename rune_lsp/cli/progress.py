"""`step N/M · …` lines on stderr while a run works, the terminal's `$/progress`."""

from __future__ import annotations

from typing import TextIO

from rune_lsp.controls import visible
from rune_lsp.loop.events import (
    PendingApproval,
    RunEvent,
    ToolResulted,
    step_line,
)
from rune_lsp.loop.messages import describe_call


class ProgressPrinter:
    """An event sink for the loop: one line per model turn, tool call and review batch.

    Results are only shown when they say something the user did not see coming: a failed or
    denied call, and what became of a reviewed change.
    """

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def __call__(self, event: RunEvent) -> None:
        line = describe_event(event)
        if line is None:
            return
        # The command, pattern or path the model chose is its text.
        self._out.write(visible(line) + "\n")
        self._out.flush()


def describe_event(event: RunEvent) -> str | None:
    if isinstance(event, PendingApproval):
        count = len(event.pending)
        return f"{event.step} · {count} change{'s' if count != 1 else ''} to review"
    if isinstance(event, ToolResulted):
        outcome = event.outcome
        if outcome.edit_status is not None:
            return f"{event.step} · {describe_call(event.call)}: {outcome.edit_status}"
        if outcome.is_failure:
            return f"{event.step} · {describe_call(event.call)}: {outcome.status}"
    return step_line(event)
