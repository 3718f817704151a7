"""Mode A as the VS Code extension's inline review does it: the user types elsewhere while the
review is open, accepts some lines of a hunk, and the client applies exactly that itself."""

from __future__ import annotations

from tests.loop.fakes import answer, edit, turn
from tests.server.conftest import Launch
from tests.server.editor import APP_PY, Apply, finished, told

FIX = turn(edit("app.py", "return a - b", "return a + b"), text="Fixing the sign.")
RENAME = turn(
    edit("app.py", "def mul(a, b):\n    return a + b\n", "def times(a, b):\n    return a * b\n"),
    text="Renaming and fixing.",
)


def edit_of(result: dict[str, object]) -> dict[str, str]:
    edits = result["edits"]
    assert isinstance(edits, list)
    [only] = edits
    assert isinstance(only, dict)
    return only


async def test_typing_above_a_pending_hunk_then_accepting_it_is_applied(launch: Launch) -> None:
    editor = await launch(FIX, answer("Fixed."), kind="vscode")
    editor.open()
    editor.applies.append(
        Apply(
            type_first=("def add", "# math\ndef add"),
            lands=lambda text: text.replace("return a - b", "return a + b"),
        )
    )

    result = await finished(editor.fix()[1])

    assert edit_of(result)["status"] == "applied"
    assert "the user also changed other lines meanwhile" in told(editor)
    assert editor.buffers[editor.uri()].text == "# math\n" + APP_PY.replace("a - b", "a + b")


async def test_accepting_some_lines_of_a_hunk_is_partial_and_names_them(launch: Launch) -> None:
    editor = await launch(RENAME, answer("Kept the name."), kind="vscode")
    editor.open()
    editor.applies.append(Apply(lands=lambda text: text.replace("a + b\n", "a * b\n")))

    result = await finished(editor.fix()[1])

    record = edit_of(result)
    assert record["status"] == "partial"
    assert "kept part of hunk 1 of 1 (lines 5-6): took effect -'return a + b', " in told(editor)
    assert "+'return a * b'; not -'def mul(a, b):', +'def times(a, b):'" in record["detail"]


async def test_typing_and_two_of_three_lines_with_the_users_reason(launch: Launch) -> None:
    editor = await launch(RENAME, answer("Understood."), kind="vscode")
    editor.open()
    editor.applies.append(
        Apply(
            type_first=("def add", "# math\ndef add"),
            lands=lambda text: text.replace("a + b\n", "a * b\n"),
            reason="hunk 1: keep the name",
        )
    )

    result = await finished(editor.fix()[1])

    record = edit_of(result)
    assert record["status"] == "partial"
    assert record["detail"].endswith("The user said: hunk 1: keep the name")


async def test_a_rejection_with_a_reason_after_typing_is_the_users_no(launch: Launch) -> None:
    editor = await launch(FIX, answer("Understood."), kind="vscode")
    editor.open()
    editor.applies.append(
        Apply(accept=False, reason="the user rejected it", type_first=("def mul", "def times"))
    )

    result = await finished(editor.fix()[1])

    assert edit_of(result)["status"] == "rejected"
    assert "the editor did not apply the edit: the user rejected it" in told(editor)
