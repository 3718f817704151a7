"""The run results the driver words itself, and how it shows edits: a run stopped before it
ended on its own (cancelled, superseded by a newer run, interrupted with a review open), one
whose check cannot run, and edit paths relative to the workspace. `runner/driver.py` decides
which applies; the loop words every other ending (loop/runtime.py).
"""

from __future__ import annotations

from pathlib import Path

from rune_lsp.loop.records import EditRecord, RunResult
from rune_lsp.loop.state import Landed, RunState
from rune_lsp.loop.statuses import WITHDRAWN, recorded_verdict
from rune_lsp.tools.paths import display_path


def cancelled(run_id: str, state: RunState | None, *, budget: int, keeps_pause: bool) -> RunResult:
    """A cancelled run's result. `state`: its last one (None before the loop began);
    `keeps_pause`: an open review's pause is kept for `rune.resume` (an interruption)."""
    if state is None:  # cancelled before the loop began: no model call was made
        return RunResult(
            run_id=run_id,
            outcome="cancelled",
            error="the run was cancelled before it started",
            iteration_budget=budget,
        )
    error = "the run was cancelled"
    if keeps_pause:
        error = f"interrupted with a review open; continue it with rune.resume {run_id}"
    return RunResult(
        run_id=run_id,
        outcome="cancelled",
        error=error,
        iterations_used=state.iterations_used,
        iteration_budget=state.iteration_budget,
        edits=tuple(_edits_at_cancel(state, withdrawn=not keeps_pause)),
    )


def superseded(result: RunResult) -> RunResult:
    """A run stopped because a newer one on its document replaced it: a cancelled result
    says so (any other stands: the run had ended before the stop reached it)."""
    if result.outcome == "cancelled":
        return result.model_copy(
            update={
                "outcome": "superseded",
                "error": "a newer run on this document replaced it",
            }
        )
    return result


def check_cannot_run(run_id: str, message: str, *, budget: int) -> RunResult:
    """The check cannot run: the user's configuration to fix, before any model turn."""
    return RunResult(run_id=run_id, outcome="failed", error=message, iteration_budget=budget)


def displayed(edits: tuple[EditRecord, ...], root: str | None) -> tuple[EditRecord, ...]:
    """File paths relative to the workspace when inside it (after verification used them)."""
    if root is None:
        return edits
    shown = []
    for edit in edits:
        path = Path(edit.path)
        if edit.tool != "run_command" and path.is_absolute():
            edit = edit.model_copy(update={"path": display_path(path, Path(root))})
        shown.append(edit)
    return tuple(shown)


def _edits_at_cancel(state: RunState, *, withdrawn: bool) -> list[EditRecord]:
    """Edits an editor already applied stay reported as such; the rest were never applied.
    `withdrawn`: no pause is kept, so an edit still pending can never be decided; its detail
    says so (a kept pause's edits are still pending, for `rune.resume`)."""
    records: list[EditRecord] = []
    for record in state.edits:
        decision = state.turn.decisions.get(record.edit_id)
        if record.status == "pending" and isinstance(decision, Landed):
            record = record.model_copy(update={"status": recorded_verdict(decision.status)})
        elif record.status == "pending" and withdrawn and not record.detail:
            record = record.model_copy(update={"detail": WITHDRAWN})
        records.append(record)
    return records
