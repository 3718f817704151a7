"""Verification as its own claim (docs/interface.md#verification).

"The edit was applied" and "the fix works" are different statements. `verified` is `true` only
when the configured check ran after the last accepted edit, exited 0, and the run changed at
least one file; `false` when it failed; `null` when no check ran.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from rune_lsp.loop.records import EditRecord
from rune_lsp.loop.state import CheckReport, PreparedChange
from rune_lsp.loop.statuses import LANDED
from rune_lsp.runner.check_result import (
    CheckCannotRunError,
    cannot_run,
    could_not_start,
    count_failures,
    steady,
)
from rune_lsp.runner.spectrum import Spectrum
from rune_lsp.store.receipt import CheckRecord
from rune_lsp.text_clip import clip, tail_lines
from rune_lsp.tools.run_command import ShellResult, run_shell


@dataclass(frozen=True)
class CheckOutcome:
    record: CheckRecord
    # False when the disk may not hold what the editor shows (unsaved buffers): no verdict then.
    trustworthy: bool = True
    note: str = ""

    @property
    def passed(self) -> bool:
        return self.record.passed


class Verifier(Protocol):
    @property
    def command(self) -> str: ...

    async def verify(self, changed_paths: Sequence[str]) -> CheckOutcome: ...


#: Called before the check with the changed paths; returns paths whose buffers may be unsaved.
SaveHook = Callable[[Sequence[str]], Awaitable[Sequence[str]]]


@dataclass(frozen=True)
class ShellVerifier:
    """Runs `checkCommand` on the disk state, after asking the front end to save first."""

    command: str
    cwd: Path
    timeout: float
    save_first: SaveHook | None = None

    async def verify(self, changed_paths: Sequence[str]) -> CheckOutcome:
        unsaved: Sequence[str] = ()
        if self.save_first is not None:
            unsaved = await self.save_first(changed_paths)
        record = record_of(
            self.command, await run_shell(self.command, cwd=self.cwd, timeout=self.timeout)
        )
        if unsaved:
            note = "unsaved editor buffers: " + ", ".join(unsaved)
            return CheckOutcome(record=record, trustworthy=False, note=note)
        return CheckOutcome(record=record)


def record_of(command: str, result: ShellResult) -> CheckRecord:
    """One run of the check command, as receipts store it."""
    return CheckRecord(
        command=command,
        exit_code=result.exit_code,
        timed_out=result.timed_out,
        stdout_tail=result.stdout_tail,
        stderr_tail=result.stderr_tail,
        duration_ms=result.duration_ms,
    )


#: What the model reads of a check's output: its last lines, at most this many characters.
FEED_LINES = 25
FEED_CHARS = 2_500


def changed_paths(edits: Sequence[EditRecord]) -> list[str]:
    """The files the run's landed edits changed (one entry per edit, commands left out)."""
    return [e.path for e in edits if e.tool != "run_command" and e.status in LANDED]


def _landed_key(edits: Sequence[EditRecord]) -> tuple[tuple[str, str], ...]:
    """Everything that reached the workspace, commands included: a check is current for it."""
    return tuple((e.edit_id, e.status) for e in edits if e.status in LANDED)


class CandidateChecks(Protocol):
    """The check on prepared changes in a scratch copy (runner/candidates.ScratchChecks)."""

    async def check(self, changes: Sequence[PreparedChange]) -> CheckReport: ...

    async def spectrum(self) -> Spectrum:
        """What the check's tests run, recorded in the scratch copy (runner/spectrum.py);
        NO_SPECTRUM when it cannot be had."""
        ...

    async def close(self) -> None: ...


class NoScratchError(Exception):
    """The run has no scratch copy to check candidate changes in (`candidates` is 1)."""


@dataclass
class CheckFeed:
    """The loop's `Checker`: the runner runs the check when the loop asks (before the first
    turn, after edits landed) and keeps the last outcome, so the final verification reuses a
    check that already ran after the last change instead of running it again."""

    verifier: Verifier
    candidates: CandidateChecks | None = None
    last: CheckOutcome | None = None
    _last_key: tuple[tuple[str, str], ...] | None = None

    @property
    def command(self) -> str:
        return self.verifier.command

    async def first(self) -> CheckOutcome:
        """The check before the run (the driver's, before the task is composed): its output
        names the files a failing test goes through. Raises CheckCannotRunError when it cannot
        run at all (runner/check_result.py): no model turn is spent on a configuration error."""
        try:
            outcome = await self._verify([])
        except OSError as exc:
            raise CheckCannotRunError(could_not_start(self.command, exc)) from None
        problem = cannot_run(outcome.record)
        if problem is not None:
            raise CheckCannotRunError(problem, outcome.record)
        self.last, self._last_key = outcome, ()
        return outcome

    async def check(self, edits: Sequence[EditRecord]) -> CheckReport:
        key = _landed_key(edits)
        outcome = await self._verify(list(dict.fromkeys(changed_paths(edits))))
        self.last, self._last_key = outcome, key
        return report_of(outcome)

    async def _verify(self, paths: list[str]) -> CheckOutcome:
        outcome = await self.verifier.verify(paths)
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            # A Ctrl-C the verifier absorbed (InterruptibleCheck) still stops the run here.
            raise asyncio.CancelledError
        return outcome

    async def check_changes(self, changes: Sequence[PreparedChange]) -> CheckReport:
        if self.candidates is None:
            raise NoScratchError("this run checks no candidate changes")
        return await self.candidates.check(changes)

    async def close(self) -> None:
        """Remove the run's scratch copy, if it made one: the driver calls it at every end."""
        if self.candidates is not None:
            await self.candidates.close()

    def current_for(self, edits: Sequence[EditRecord]) -> CheckOutcome | None:
        """The last outcome when nothing landed since it ran, else None."""
        return self.last if self._last_key == _landed_key(edits) else None


def report_of(check: CheckOutcome) -> CheckReport:
    """The check as the loop hands it to the model: the tail of its output that matters, the
    same for two runs on the same code (`check_result.steady`)."""
    record = check.record
    parts = [part.strip("\n") for part in (record.stdout_tail, record.stderr_tail)]
    output = steady("\n".join(part for part in parts if part.strip()))
    return CheckReport(
        command=record.command,
        exit_code=record.exit_code,
        timed_out=record.timed_out,
        output=clip(tail_lines(output, FEED_LINES), FEED_CHARS, keep="tail"),
        note="" if check.trustworthy else check.note,
        failures=count_failures(f"{record.stdout_tail}\n{record.stderr_tail}", record.exit_code),
    )


def verified_from(check: CheckOutcome | None) -> bool | None:
    if check is None or not check.trustworthy:
        return None
    return check.passed


_CLAIM = re.compile(r"\bverified\b|\bverify\b.*\b(passed|succeeded)\b", re.IGNORECASE)


def annotate_answer(answer: str, check: CheckOutcome | None) -> str:
    """State the verification result in the answer, so no answer claims more than was shown."""
    if check is None:
        if _CLAIM.search(answer):
            return answer + "\n\nNote: no check command ran, so this fix is not verified."
        return answer
    command = f"`{check.record.command}`"
    if not check.trustworthy:
        return f"{answer}\n\nVerification: not verified: {command} ran, but {check.note}."
    if check.passed:
        return f"{answer}\n\nVerification: {command} passed (exit 0)."
    record = check.record
    reason = "timed out" if record.timed_out else f"failed (exit {record.exit_code})"
    shown = tail_lines(record.stderr_tail or record.stdout_tail, 15)
    suffix = f":\n{shown}" if shown else "."
    return f"{answer}\n\nVerification: {command} {reason}; the fix is not verified{suffix}"
