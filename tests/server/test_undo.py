"""Ctrl+Z after an accepted edit: the run's record and the model hear that the user undid it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from rune_lsp.interface import ACCEPT_EDIT
from rune_lsp.server.undo import UNDONE
from tests.loop.fakes import answer, edit, read, turn
from tests.server.conftest import Launch
from tests.server.editor import APP_PY, Apply, InProcessEditor, Kind, finished, until

FIX = turn(edit("app.py", "return a - b", "return a + b"), text="Fixing the sign.")
FIXED = APP_PY.replace("return a - b", "return a + b")
RENAME = turn(edit("app.py", "def mul", "def times"), text="And the name.")


def receipt_edits(editor: InProcessEditor, run_id: str) -> list[dict[str, Any]]:
    path = Path(editor.state_dir) / "receipts" / f"{run_id}.json"
    if not path.exists():
        return []
    edits: list[dict[str, Any]] = json.loads(path.read_text("utf-8"))["result"]["edits"]
    return edits


def notes(editor: InProcessEditor, run_id: str) -> list[str]:
    path = Path(editor.state_dir) / "receipts" / f"{run_id}.json"
    found: list[str] = json.loads(path.read_text("utf-8"))["notes"]
    return found


@pytest.mark.parametrize("kind", ["vscode", "neovim"])
async def test_an_undo_after_the_run_ended_is_recorded_in_its_receipt(
    launch: Launch, kind: Kind
) -> None:
    editor = await launch(FIX, answer("Fixed."), kind=kind)
    uri = editor.open()
    _, running = editor.fix()
    if kind == "neovim":  # mode B: the user accepts through the diagnostic's code action
        [diagnostic] = await until(editor.rune_diagnostics, "the pending edit's diagnostic")
        assert await editor.command(ACCEPT_EDIT, diagnostic.data) == {"status": "applied"}
    result = await finished(running)
    assert result["edits"][0]["status"] == "applied"
    assert editor.buffers[uri].text == FIXED

    editor._changed(uri, APP_PY)  # Ctrl+Z

    run_id = result["runId"]
    [record] = await until(
        lambda: [e for e in receipt_edits(editor, run_id) if e["detail"].startswith(UNDONE)],
        "the undo in the receipt",
    )
    assert record["status"] == "applied"  # the public vocabulary stays
    assert "accepted" in record["detail"]
    note = "undone by the user in the editor after the run ended"
    assert any(note in n for n in notes(editor, run_id))


async def test_an_undo_then_a_redo_leaves_the_edit_applied(launch: Launch) -> None:
    editor = await launch(FIX, answer("Fixed."), kind="vscode")
    uri = editor.open()
    result = await finished(editor.fix()[1])
    editor._changed(uri, APP_PY)  # Ctrl+Z
    run_id = result["runId"]
    await until(
        lambda: any(e["detail"].startswith(UNDONE) for e in receipt_edits(editor, run_id)),
        "the undo in the receipt",
    )
    editor._changed(uri, FIXED)  # Ctrl+Y
    [record] = await until(
        lambda: [e for e in receipt_edits(editor, run_id) if not e["detail"].startswith(UNDONE)],
        "the redo in the receipt",
    )
    assert record["status"] == "applied"


async def test_an_undo_while_the_run_goes_on_is_told_to_the_model(launch: Launch) -> None:
    editor = await launch(FIX, RENAME, answer("Noted."), kind="vscode")
    uri = editor.open()
    editor.applies.extend([Apply(), Apply(hold=True)])
    _, running = editor.fix()
    await until(lambda: editor.held, "the second edit's review")

    editor._changed(uri, APP_PY)  # Ctrl+Z of the first edit while the second is reviewed
    editor.release()
    result = await finished(running)

    first = result["edits"][0]
    assert first["status"] == "applied"
    assert first["detail"].startswith(UNDONE)
    told = "\n".join(m.content for m in editor.model.calls[-1].messages)
    assert "The user undid your edit of app.py in the editor (Ctrl+Z)" in told


async def test_typing_after_the_edit_ends_the_watch(launch: Launch) -> None:
    editor = await launch(FIX, answer("Fixed."), kind="vscode")
    uri = editor.open()
    result = await finished(editor.fix()[1])
    editor.type("def mul", "def times")
    editor.type("def times", "def mul")  # the edit's text again, but by hand: no redo
    editor._changed(uri, APP_PY)  # not Ctrl+Z of the edit any more: the user typed since
    await asyncio.sleep(0.8)
    assert not any(e["detail"].startswith(UNDONE) for e in receipt_edits(editor, result["runId"]))


async def test_flips_during_a_run_are_told_once_and_write_no_false_notes(launch: Launch) -> None:
    # Issue 25, item 8: 400 undo/redo flips while the run went on gave the model 400 notices
    # in one request and the receipt 400 notes "after the run ended".
    editor = await launch(FIX, turn(read("app.py")), answer("Noted."), kind="vscode")
    uri = editor.open()
    model = editor.model
    chat = model.chat

    async def flipping_chat(*args: Any, **kwargs: Any) -> Any:
        if len(model.calls) == 1:  # the edit landed; the model is asked again
            for _ in range(200):
                editor._changed(uri, APP_PY)  # Ctrl+Z
                editor._changed(uri, FIXED)  # Ctrl+Y
            editor._changed(uri, APP_PY)  # one more Ctrl+Z: undone, in the end
        return await chat(*args, **kwargs)

    model.chat = flipping_chat  # type: ignore[method-assign]
    result = await finished(editor.fix()[1])

    third = "\n".join(m.content for m in model.calls[2].messages)
    assert third.count("The user undid your edit of app.py") == 1
    assert "The user redid your edit" not in third
    first = result["edits"][0]
    assert first["detail"].startswith(UNDONE)

    editor._changed(uri, FIXED)  # a redo after the run ended: one true note
    run_id = result["runId"]
    await until(
        lambda: not receipt_edits(editor, run_id)[0]["detail"].startswith(UNDONE),
        "the redo in the receipt",
    )
    assert [n for n in notes(editor, run_id) if "by the user in the editor" in n] == [
        f"edit {first['editId']} was redone by the user in the editor after the run ended"
    ]
