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


async def test_mode_b_places_the_second_diagnostic_on_the_text_after_the_first(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    # The first edit adds lines above the second's target: once it lands, the second edit's
    # diagnostic must sit on the greet line where it is now, not where it was.
    documented = (
        "edit_file",
        {
            "path": "app.py",
            "old_text": "def add(a, b):\n",
            "new_text": ('def add(a, b):\n    """The sum."""\n    # (was a - b)\n'),
        },
    )
    double.script(calls(documented, FIX_GREET, text="two fixes"), Reply(text="Both fixed."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    first = await editor.pending_review(uri)
    assert await editor.review(uri, first, "Accept edit") == {"status": "applied"}
    second = await editor.wait_for(
        lambda: [d for d in editor.rune_diagnostics(uri) if d.code != first.code],
        "the second edit's diagnostic",
    )
    greet_line = editor.text("app.py").splitlines().index('    return "hi " + name')
    assert second[0].range.start.line == greet_line
    assert await editor.review(uri, second[0], "Accept edit") == {"status": "applied"}
    result = await fix.result()
    assert result.statuses() == [("edit_file", "applied"), ("edit_file", "applied")]
    assert '"hello "' in editor.text("app.py") and '"""The sum."""' in editor.text("app.py")
