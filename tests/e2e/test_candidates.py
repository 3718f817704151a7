"""Candidate fixes over stdio: the first fails the check in the scratch copy, the second passes,
and the user is shown only the second, marked as passing."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from tests.doubles.model_double import ModelDouble, Reply
from tests.e2e.conftest import APP_PY, Launch
from tests.e2e.scenario import disk, edit, told
from tests.e2e.wire import WireCandidates

CHECK = shlex.join(
    [sys.executable, "-c", "import app, sys; sys.exit(0 if app.add(2, 3) == 5 else 1)"]
)
SECOND = "The sign was wrong.\n```python\ndef add(a, b):\n    return a + b\n```"


async def test_only_the_candidate_that_passes_is_shown_marked_passed(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(edit("app.py", "return a - b", "return a * b"), Reply(text=SECOND))
    editor = await launch("vscode", settings={"checkCommand": CHECK, "candidates": 4})
    editor.open("app.py")

    result = await editor.fix("app.py")

    [record] = editor.apply_records  # the failing candidate was never sent
    assert record.params.label == f"rune: edit_file app.py · passes `{CHECK}`"
    assert "return a + b" in editor.text("app.py") and "a * b" not in editor.text("app.py")
    assert result.statuses() == [("edit_file", "applied")]
    assert result.candidates == WireCandidates.model_validate(
        {"tried": 2, "checksRun": 2, "passed": 1}
    )
    assert result.outcome == "completed"
    # The turn, then a second fix after the first failed in the scratch copy (a third turn
    # follows the accept: the buffer is unsaved, so the check on the disk cannot pass).
    assert len(double.chat_requests) == 3
    assert "return a * b" not in told(double, 0)
    second = told(double, 1)
    assert "Fix 1:" in second and "return a * b" in second
    # The user's file on disk was never touched by a check (mode A changes the buffer only).
    assert disk(workspace / "app.py") == APP_PY


async def test_one_candidate_shows_the_first_fix_unchecked(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(edit("app.py", "return a - b", "return a * b"), Reply(text="Done."))
    editor = await launch("vscode", settings={"checkCommand": CHECK, "candidates": 1})
    editor.open("app.py")

    result = await editor.fix("app.py")

    [record] = editor.apply_records
    assert record.params.label == "rune: edit_file app.py"
    assert result.candidates is None
