"""Ctrl-C (and SIGTERM) during a run cancel the run instead of killing Python.

A cancelled run still ends through the driver: the model call is dropped, nothing more is
applied, the receipt is written, and the command exits 1 with outcome `cancelled`; that holds
for a check the loop waits for (before the first turn, after an accepted edit) too. Ctrl-C while
the final verification runs on its own stops the check only: the run's work is done by then, so
its result and receipt stand, with `verified` left unknown.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from rune_lsp.runner.verify import CheckOutcome, Verifier
from rune_lsp.store.receipt import CheckRecord

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupt:
    """Whether the user asked to stop, and the signal handlers that ask for them."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self.requested: signal.Signals | None = None

    @contextlib.contextmanager
    def cancelling(self, run: asyncio.Future[Any]) -> Iterator[None]:
        """While inside, SIGINT/SIGTERM cancel `run` once; afterwards the defaults are back."""
        loop = asyncio.get_running_loop()
        installed: list[signal.Signals] = []
        for signum in _SIGNALS:
            # Not POSIX, or not the main thread: the signal then works the default way.
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, self._cancel, run, signum)
                installed.append(signum)
        try:
            yield
        finally:
            for signum in installed:
                loop.remove_signal_handler(signum)

    def _cancel(self, run: asyncio.Future[Any], signum: signal.Signals) -> None:
        # Once only: a second Ctrl-C must not interrupt the run's own clean-up (its receipt).
        if run.done() or self.requested is not None:
            return
        self.requested = signum
        shown = "interrupted" if signum == signal.SIGINT else "terminated"
        self._out.write(f"\n{shown}: cancelling the run...\n")
        self._out.flush()
        run.cancel()


@dataclass(frozen=True)
class InterruptibleCheck:
    """A verifier whose check the user can stop without losing the run's result.

    The check runs after the run's last step, so a cancel landing there would otherwise end
    the driver without a result or receipt. The check's process group is killed either way.
    """

    check: Verifier
    command: str
    interrupt: Interrupt

    async def verify(self, changed_paths: Sequence[str]) -> CheckOutcome:
        started = time.monotonic()
        try:
            return await self.check.verify(changed_paths)
        except asyncio.CancelledError:
            if self.interrupt.requested is None:
                raise  # not the user's doing: someone else is stopping us
            signum = self.interrupt.requested
            record = CheckRecord(
                command=self.command,
                exit_code=-int(signum),
                duration_ms=(time.monotonic() - started) * 1000,
            )
            note = f"it was stopped ({signum.name}) before it finished"
            return CheckOutcome(record=record, trustworthy=False, note=note)
