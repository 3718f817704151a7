"""What every editor must show after the review flow, whichever editor ran it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.doubles.model_double import ModelDouble
from tests.editors import scenario
from tests.editors.editor_process import ReviewStep
from tests.editors.report import DriverReport

REVIEW_TITLES = ["Accept edit", "Reject edit", "Show diff"]


def assert_pending_edit_was_shown(report: DriverReport, explain: str) -> None:
    """`Rune: Fix this` was offered, and the pending edit became an Information diagnostic
    from `rune` over the bug line, offering the three review actions."""
    assert "Rune: Fix this" in report.offered[0], explain
    pending = report.pending
    assert pending is not None, explain
    assert (pending.source, pending.severity) == ("rune", "information"), explain
    assert (pending.line, pending.end_line) == (scenario.BUG_LINE, scenario.BUG_LINE), explain
    assert report.offered[1][: len(REVIEW_TITLES)] == REVIEW_TITLES, explain


def assert_diff_was_shown(report: DriverReport, explain: str) -> None:
    diffs = [m for m in report.messages if f"+++ b/{scenario.FILE_NAME}" in m]
    assert diffs, explain
    assert f"-{scenario.BUGGY_LINE}\n" in diffs[0], explain
    assert f"+{scenario.FIXED_LINE}\n" in diffs[0], explain


def assert_accepted(report: DriverReport, double: ModelDouble, project: Path, explain: str) -> None:
    """The Accept edit action reached the buffer (saved only by the save), and the run says so."""
    assert report.command_errors == {}, explain
    assert report.verdict_status == "applied", explain
    assert_landed(report, double, project, explain)


def assert_landed(report: DriverReport, double: ModelDouble, project: Path, explain: str) -> None:
    """The edit reached the buffer (saved only by the save), and the run says so."""
    assert report.cleared, explain
    assert report.modified_before_save is True, explain
    result = report.run_result
    assert result is not None, explain
    assert result.outcome == "completed", explain
    assert result.answer == scenario.ANSWER, explain
    assert [(e.tool, e.path, e.status) for e in result.edits] == [
        ("edit_file", scenario.FILE_NAME, "applied")
    ], explain
    assert [(c.name, c.status) for c in result.tool_calls] == [
        ("read_file", "ok"),
        ("edit_file", "ok"),
    ], explain
    assert len(double.chat_requests) == 3, explain
    assert project.read_text(encoding="utf-8") == scenario.FIXED


def assert_rejected(report: DriverReport, project: Path, explain: str) -> None:
    """Nothing reached the buffer or the disk, and the run reports the edit rejected."""
    assert report.cleared, explain
    assert report.modified_before_save is False, explain
    result = report.run_result
    assert result is not None, explain
    assert result.outcome == "completed", explain
    assert [(e.path, e.status) for e in result.edits] == [(scenario.FILE_NAME, "rejected")], explain
    assert project.read_text(encoding="utf-8") == scenario.BUGGY


#: The code action menu on a hunk's diagnostic, in the order the docs number it.
HUNK_MENU = [
    "Accept edit",
    "Reject edit",
    "Show diff",
    "Accept hunk",
    "Reject hunk",
    "Rune: Fix this",
]

#: The docs' per-hunk flow: accept hunk 1, reject hunk 2 saying why, accept the rest.
PER_HUNK_STEPS = (
    ReviewStep("Accept hunk", hunk=1),
    ReviewStep("Reject hunk", hunk=2, reason=scenario.REASON),
    ReviewStep("Accept edit", hunk=3),
)


def assert_per_hunk_flow(
    report: DriverReport, double: ModelDouble, project: Path, explain: str
) -> None:
    """Each hunk was shown inline with its proposal, decided as PER_HUNK_STEPS say; hunks 1
    and 3 landed, and the model heard why hunk 2 did not."""
    assert report.command_errors == {}, explain
    lines = [(h.hunk_id, h.line, h.end_line) for h in report.hunks]
    assert lines == [(n, line, line) for n, line in enumerate(scenario.HUNK_LINES, 1)], explain
    for hunk, shown, (buggy, fixed) in zip(
        report.hunks, report.floats, scenario.HUNK_FIXES, strict=True
    ):
        assert f"- {buggy}" in hunk.message and f"+ {fixed}" in hunk.message, explain
        assert shown is not None and f"+ {fixed}" in shown, explain
    assert report.offered[1:] == [HUNK_MENU] * len(PER_HUNK_STEPS), explain
    assert report.statuses == [
        ("rune.acceptHunk", "pending"),
        ("rune.rejectHunk", "pending"),
        ("rune.acceptEdit", "partial"),
    ], explain
    assert report.prompts == ["Why reject? "], explain
    assert report.cleared and report.modified_before_save is True, explain
    result = report.run_result
    assert result is not None and result.outcome == "completed", explain
    assert result.answer == scenario.HUNKS_ANSWER, explain
    assert [(e.path, e.status) for e in result.edits] == [(scenario.FILE_NAME, "partial")], explain
    told = json.dumps(double.chat_requests[-1].body["messages"])
    line = scenario.HUNK_LINES[1] + 1
    assert f"the user rejected hunk 2 of 3 (line {line}): {scenario.REASON}" in told, explain
    assert project.read_text(encoding="utf-8") == scenario.hunks_kept(1, 3)
