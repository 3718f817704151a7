"""How a run ends before its model gives a final answer: one exception, raised wherever inside
the run the reason is found (a provider failure, the iteration budget, a guard that tripped in
a turn) and turned into the run's result by the runtime alone (`loop/runtime.py`)."""

from __future__ import annotations

from rune_lsp.loop.records import Outcome


class Stop(Exception):
    """Ends the run with `outcome` and `error`.

    `synthesize`: the runtime stopped a run that did not fail (the repeat guard); one tool-less
    model call writes its answer before it ends.
    """

    def __init__(self, outcome: Outcome, error: str, *, synthesize: bool = False) -> None:
        super().__init__(error)
        self.outcome = outcome
        self.error = error
        self.synthesize = synthesize


def describe(exc: BaseException) -> str:
    """An unexpected exception as one line: its type, and its message when it has one."""
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__
