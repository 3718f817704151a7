"""Cancelling a run, each of the three ways, and superseding it with a newer run.

A cancelled run really stops: its model request is dropped and no further request reaches the
model, its open reviews are withdrawn, and it still leaves a receipt.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from rune_lsp.store.receipts import ReceiptStore
from tests.doubles.model_double import Hang, ModelDouble, Reply
from tests.e2e.conftest import APP_PY, Launch
from tests.e2e.editor import WAIT, ApplyPolicy, FakeEditor
from tests.e2e.scenario import edit


async def model_is_asked(double: ModelDouble, count: int = 1) -> None:
    assert await asyncio.to_thread(double.wait_for_chat, WAIT, count), "no chat request"


async def assert_stopped(editor: FakeEditor, double: ModelDouble, token: str) -> None:
    """The run ended, dropped the model request it was waiting on, and sent no other."""
    asked = len(double.chat_requests)
    await editor.wait_for(lambda: editor.progress_ended(token), "the run's progress to end")
    assert await asyncio.to_thread(double.wait_for_disconnect, WAIT) is not None
    assert len(double.chat_requests) == asked
    [end] = [r for r in editor.client.progress_reports[token] if r.kind == "end"]
    assert end.message is not None and end.message.startswith("cancelled")


def receipt_outcome(state_dir: Path, run_id: str) -> str:
    receipt = ReceiptStore(state_dir).load(run_id)
    assert receipt is not None, f"no receipt for run {run_id}"
    return receipt.outcome


async def test_cancel_request_on_fix_this_stops_the_run(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(Hang())
    editor = await launch("vscode")
    fix = editor.start_fix("app.py")
    token = await editor.run_token()
    await model_is_asked(double)

    editor.cancel_request(fix)

    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(fix.task, WAIT)
    await assert_stopped(editor, double, token)
    assert receipt_outcome(editor.state_dir, token.removeprefix("rune/")) == "cancelled"


async def test_cancelling_the_progress_cancels_the_run(launch: Launch, double: ModelDouble) -> None:
    double.script(Hang())
    editor = await launch("neovim")
    fix = editor.start_fix("app.py")
    token = await editor.run_token()
    await model_is_asked(double)

    editor.cancel_progress(token)
    result = await fix.result()

    assert result.outcome == "cancelled"
    assert result.error == "the run was cancelled"
    assert result.run_id == token.removeprefix("rune/")
    await assert_stopped(editor, double, token)


async def test_rune_cancel_by_run_id(launch: Launch, double: ModelDouble) -> None:
    double.script(Hang())
    editor = await launch("vscode")
    fix = editor.start_fix("app.py")
    run_id = (await editor.run_token()).removeprefix("rune/")
    await model_is_asked(double)

    assert await editor.command("rune.cancel", {"runId": run_id}) == {"cancelled": True}
    result = await fix.result()

    assert result.outcome == "cancelled" and result.run_id == run_id
    assert result.receipt is not None
    await assert_stopped(editor, double, f"rune/{run_id}")
    assert await editor.command("rune.cancel", {"runId": run_id}) == {"cancelled": False}


async def test_cancel_withdraws_a_pending_mode_b_review(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="never asked for"))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")
    fix = editor.start_fix("app.py")
    diagnostic = await editor.pending_review(uri)
    run_id = (await editor.run_token()).removeprefix("rune/")

    assert await editor.command("rune.cancel", {"runId": run_id}) == {"cancelled": True}
    result = await fix.result()

    assert result.outcome == "cancelled"
    # The edit was never applied (it stays reported as it was when the run stopped).
    assert result.statuses() == [("edit_file", "pending")]
    await editor.wait_for(lambda: not editor.rune_diagnostics(uri), "the review withdrawn")
    assert editor.apply_records == []
    assert editor.text("app.py") == APP_PY
    assert len(double.chat_requests) == 1
    actions = await editor.code_actions(uri, diagnostic.range, [diagnostic])
    assert [a.title for a in actions] == ["Rune: Fix this"]
    edit_id = diagnostic.data["editId"]
    assert "no pending edit" in await editor.command_error("rune.acceptEdit", {"editId": edit_id})


async def test_cancel_withdraws_an_open_mode_a_preview(launch: Launch, double: ModelDouble) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="never asked for"))
    editor = await launch("vscode")
    editor.open("app.py")
    editor.apply_policies.append(ApplyPolicy(delay=WAIT))  # the preview stays open
    fix = editor.start_fix("app.py")
    await editor.wait_for(lambda: editor.apply_records, "the preview")
    run_id = (await editor.run_token()).removeprefix("rune/")

    assert await editor.command("rune.cancel", {"runId": run_id}) == {"cancelled": True}
    result = await fix.result()

    assert result.outcome == "cancelled"
    await editor.wait_for(lambda: editor.received(types.CANCEL_REQUEST), "the applyEdit withdrawn")
    assert editor.apply_records[0].result is None  # never answered: the editor dropped it
    assert editor.text("app.py") == APP_PY
    assert len(double.chat_requests) == 1


async def test_a_newer_run_on_the_same_document_supersedes_the_first(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(Hang(), Reply(text="the second run"))
    # The second run's first turn offers no tools and asks for code: an answer without a
    # block is asked once more for one (answers/table.py, the code_first row), then stands.
    double.default = Reply(text="the second run")
    editor = await launch("neovim")
    editor.open("app.py")
    first = editor.start_fix("app.py")
    await model_is_asked(double)

    second = editor.start_fix("app.py", instruction="do it differently")
    superseded = await first.result()
    result = await second.result()

    assert superseded.outcome == "superseded"
    assert superseded.error == "a newer run on this document replaced it"
    assert result.outcome == "completed" and result.answer == "the second run"
    assert superseded.run_id != result.run_id
    assert await asyncio.to_thread(double.wait_for_disconnect, WAIT) is not None
    # One for the first run; two for the second (prose, asked once more for a block, prose).
    assert len(double.chat_requests) == 3
