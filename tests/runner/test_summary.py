"""One wording for how a run ended: a run that proposed no change never reads as a fix."""

from __future__ import annotations

import pytest

from rune_lsp.loop.records import EditRecord, Outcome, RunResult
from rune_lsp.loop.statuses import UNDONE, WITHDRAWN, EditStatus
from rune_lsp.runner.summary import outcome_words, run_summary


def result(
    outcome: Outcome = "completed",
    *statuses: EditStatus,
    verified: bool | None = None,
    error: str | None = None,
    tool: str = "edit_file",
) -> RunResult:
    edits = tuple(
        EditRecord(edit_id=f"e{n}", tool=tool, path="app.py", status=status)
        for n, status in enumerate(statuses)
    )
    return RunResult(
        run_id="r", outcome=outcome, iteration_budget=8, edits=edits, verified=verified, error=error
    )


@pytest.mark.parametrize(
    ("run", "summary"),
    [
        (result(), "completed · no change proposed"),
        (
            result("incomplete", error="empty final answer"),
            "incomplete · no change proposed · empty final answer",
        ),
        (
            result("completed", "applied", verified=True),
            "completed · 1 edit applied · check passed",
        ),
        (result("completed", "applied", "rejected"), "completed · 2 edits: 1 applied, 1 rejected"),
        (result("completed", "rejected", "rejected"), "completed · 2 edits rejected"),
        (
            result("failed", error="iteration limit reached (8/8)"),
            "failed · iteration limit reached (8/8)",
        ),
        (result("cancelled"), "cancelled"),
        # A command is not a change to the code.
        (result("completed", "applied", tool="run_command"), "completed · no change proposed"),
    ],
)
def test_run_summary(run: RunResult, summary: str) -> None:
    assert run_summary(run) == summary


def test_outcome_words_leave_the_outcome_itself_alone() -> None:
    run = result()
    assert outcome_words(run) == "completed · no change proposed"
    assert run.outcome == "completed" and run.edits == ()


def test_an_edit_withdrawn_when_its_run_ended_is_not_pending() -> None:
    """Issue 27 point 5: the run ended while the edit waited, no pause kept: nobody can
    decide it now. One kept for `rune.resume` is still pending."""
    withdrawn = EditRecord(
        edit_id="e1", tool="edit_file", path="app.py", status="pending", detail=WITHDRAWN
    )
    run = result("superseded", "applied")
    run = run.model_copy(update={"edits": (*run.edits, withdrawn)})
    assert run_summary(run) == "superseded · 2 edits: 1 applied, 1 withdrawn"
    assert run_summary(result("cancelled", "pending")) == "cancelled · 1 edit pending"


def test_an_edit_the_user_undid_is_not_applied() -> None:
    """Issue 27 point 5: Ctrl+Z after an accept keeps the status (what landed) but the
    summary says what the file holds now."""
    undone = EditRecord(
        edit_id="e0",
        tool="edit_file",
        path="app.py",
        status="applied",
        detail=UNDONE + "the user accepted the edit; it was applied",
    )
    run = RunResult(run_id="r", outcome="completed", iteration_budget=8, edits=(undone,))
    assert run_summary(run) == "completed · 1 edit undone"
