"""Two edits to one file in one model turn: both land when they touch different lines.

Each edit was computed against the same original text; once the first lands, the second is
rebased onto the new text right before it is sent, instead of coming back stale. Edits that
touch the same lines still come back stale: never a blind overwrite.
"""

from __future__ import annotations

from pathlib import Path

from tests.doubles.model_double import ModelDouble, Reply
from tests.e2e.conftest import APP_PY, Launch
from tests.e2e.scenario import calls

FIX_ADD = ("edit_file", {"path": "app.py", "old_text": "a - b", "new_text": "a + b"})
FIX_GREET = ("edit_file", {"path": "app.py", "old_text": '"hi "', "new_text": '"hello "'})
BOTH = APP_PY.replace("a - b", "a + b").replace('"hi "', '"hello "')


async def test_mode_a_accepts_both_edits_of_one_turn(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(calls(FIX_ADD, FIX_GREET, text="two fixes"), Reply(text="Both fixed."))
    editor = await launch("vscode")
    editor.open("app.py")

    result = await editor.fix("app.py")

    assert result.outcome == "completed"
    assert result.statuses() == [("edit_file", "applied"), ("edit_file", "applied")]
    assert editor.text("app.py") == BOTH
    assert len(editor.apply_records) == 2


async def test_mode_b_accepts_both_edits_of_one_turn(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(calls(FIX_ADD, FIX_GREET, text="two fixes"), Reply(text="Both fixed."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    for _ in range(2):
        diagnostic = await editor.pending_review(uri)
        assert await editor.review(uri, diagnostic, "Accept edit") == {"status": "applied"}
    result = await fix.result()

    assert result.statuses() == [("edit_file", "applied"), ("edit_file", "applied")]
    assert editor.text("app.py") == BOTH
