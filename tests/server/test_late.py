"""A dead run's open preview that the editor applies anyway is recorded in its receipt."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from rune_lsp.interface import CANCEL
from rune_lsp.store.receipts import ReceiptStore
from tests.loop.fakes import answer, edit, turn
from tests.server.conftest import Launch
from tests.server.editor import WAIT, Apply, InProcessEditor, until

FIX = turn(edit("app.py", "return a - b", "return a + b"), text="Fixing the sign.")


async def cancelled_with_preview_open(editor: InProcessEditor) -> tuple[str, dict[str, object]]:
    editor.open()
    editor.applies.append(Apply(hold=True))
    _, answer_ = editor.fix()
    await until(lambda: editor.held, "the applyEdit")
    [token] = editor.progress_tokens()
    run_id = token.removeprefix("rune/")
    assert await editor.command(CANCEL, {"runId": run_id}) == {"cancelled": True}
    result = await asyncio.wait_for(answer_, WAIT)
    return run_id, result


def cancel_requests(editor: InProcessEditor) -> list[object]:
    return [m["params"]["id"] for m in editor.notifications(types.CANCEL_REQUEST)]


async def test_an_edit_applied_after_its_run_was_cancelled_is_recorded(launch: Launch) -> None:
    editor = await launch(FIX, answer("never asked for"), kind="vscode")
    run_id, result = await cancelled_with_preview_open(editor)
    assert result["outcome"] == "cancelled"
    [request] = editor.requests(types.WORKSPACE_APPLY_EDIT)
    assert request["id"] in cancel_requests(editor)  # the server withdrew it

    editor.release()  # VS Code ignores the withdrawal: the user presses Apply

    def recorded() -> object:
        stored = ReceiptStore(editor.state_dir).load(run_id)
        return stored is not None and stored.result.edits[0].status == "applied" and stored

    stored = await until(recorded, "the late edit in the receipt")
    assert stored.result.outcome == "cancelled"
    assert "after the run ended" in stored.edits[0].detail
    assert any("after the run ended" in note for note in stored.notes)
    assert "return a + b" in editor.buffers[editor.uri()].text
    [shown] = editor.notifications(types.WINDOW_SHOW_MESSAGE)
    assert "app.py was applied after its run had ended" in shown["params"]["message"]


async def test_a_withdrawn_preview_the_editor_refuses_stays_pending(launch: Launch) -> None:
    editor = await launch(FIX, answer("never asked for"), kind="vscode")
    run_id, _ = await cancelled_with_preview_open(editor)
    editor.held[0] = (*editor.held[0][:2], Apply(accept=False, hold=True))

    editor.release()
    await asyncio.sleep(0.3)

    stored = ReceiptStore(editor.state_dir).load(run_id)
    assert stored is not None and stored.result.edits[0].status == "pending"
    assert editor.notifications(types.WINDOW_SHOW_MESSAGE) == []


async def test_inline_reviews_reason_reaches_the_model_with_a_partial_accept(
    launch: Launch,
) -> None:
    editor = await launch(FIX, answer("Understood."), kind="vscode")
    editor.open()
    editor.applies.append(Apply(reason="keep the subtraction"))

    await asyncio.wait_for(editor.fix()[1], WAIT)

    assert "The user said: keep the subtraction" in editor.model.calls[-1].messages[-1].content
