"""Runs as tasks: cancel (three ways), supersede, shutdown and resume, in process."""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import sys

import pytest
from lsprotocol import types

from rune_lsp.interface import CANCEL, RESUME
from rune_lsp.store.pending import PendingStore
from rune_lsp.store.receipts import ReceiptStore
from tests.loop.fakes import Hang, answer, edit, turn
from tests.server.conftest import Launch
from tests.server.editor import WAIT, CommandError, InProcessEditor, until

FIX = turn(edit("app.py", "return a - b", "return a + b"), text="Fixing the sign.")


async def hanging_run(editor: InProcessEditor) -> tuple[int, asyncio.Future[object], str]:
    """A run whose model never answers: its request id, its answer and its run id."""
    request_id, answer_ = editor.fix()
    await asyncio.wait_for(editor.model.entered_hang.wait(), WAIT)
    [token] = await until(editor.progress_tokens, "the run's progress token")
    return request_id, answer_, token.removeprefix("rune/")


async def test_rune_cancel_stops_the_run_and_keeps_its_receipt(launch: Launch) -> None:
    editor = await launch(Hang())
    _, answer_, run_id = await hanging_run(editor)

    assert await editor.command(CANCEL, {"runId": run_id}) == {"cancelled": True}
    result = await asyncio.wait_for(answer_, WAIT)

    assert result["outcome"] == "cancelled" and result["runId"] == run_id
    assert result["error"] == "the run was cancelled"
    assert result["iterationsUsed"] == 1
    stored = ReceiptStore(editor.state_dir).load(run_id)
    assert stored is not None and stored.outcome == "cancelled"
    assert editor.progress_end(f"rune/{run_id}") == "cancelled · the run was cancelled"
    assert await editor.command(CANCEL, {"runId": run_id}) == {"cancelled": False}


async def test_cancelling_the_progress_cancels_the_run(launch: Launch) -> None:
    editor = await launch(Hang())
    _, answer_, run_id = await hanging_run(editor)

    editor.notify(types.WINDOW_WORK_DONE_PROGRESS_CANCEL, {"token": f"rune/{run_id}"})
    result = await asyncio.wait_for(answer_, WAIT)

    assert result["outcome"] == "cancelled"


async def test_cancel_request_on_fix_this_stops_the_run(launch: Launch) -> None:
    editor = await launch(Hang())
    request_id, answer_, run_id = await hanging_run(editor)

    editor.notify(types.CANCEL_REQUEST, {"id": request_id})
    error = await editor.error_of(answer_)

    assert error.code == types.LSPErrorCodes.RequestCancelled
    await until(lambda: editor.progress_end(f"rune/{run_id}"), "the run's progress to end")
    stored = ReceiptStore(editor.state_dir).load(run_id)
    assert stored is not None and stored.outcome == "cancelled"


async def test_cancel_withdraws_an_open_review(launch: Launch) -> None:
    editor = await launch(FIX, answer("never asked for"))
    editor.open()
    _, answer_ = editor.fix()
    [diagnostic] = await until(editor.rune_diagnostics, "the pending edit's diagnostic")
    [token] = editor.progress_tokens()
    run_id = token.removeprefix("rune/")
    assert PendingStore(editor.state_dir).load(run_id) is not None  # persisted before the review

    assert await editor.command(CANCEL, {"runId": run_id}) == {"cancelled": True}
    result = await asyncio.wait_for(answer_, WAIT)

    assert result["outcome"] == "cancelled"
    assert [(e["tool"], e["status"]) for e in result["edits"]] == [("edit_file", "pending")]
    # Issue 27 point 5: nobody can decide it now, so the last word is not "1 edit pending".
    assert result["edits"][0]["detail"].startswith("withdrawn: the run ended")
    ended = await until(lambda: editor.progress_end(token), "the run's progress to end")
    assert "1 edit withdrawn" in ended and "pending" not in ended
    assert editor.rune_diagnostics() == []
    assert editor.requests(types.WORKSPACE_APPLY_EDIT) == []
    assert len(editor.model.calls) == 1
    error = await editor.error_of(editor.command("rune.acceptEdit", diagnostic.data))
    assert "no pending edit" in str(error)
    # The user's cancel leaves nothing to resume.
    assert PendingStore(editor.state_dir).load(run_id) is None


async def test_a_newer_run_on_the_same_document_supersedes_the_first(launch: Launch) -> None:
    # The second run's code-first turn asks once more for a block; the answer stands then.
    editor = await launch(Hang(), answer("the second run"), answer("the second run"))
    _, first, first_id = await hanging_run(editor)

    _, second = editor.fix(instruction="do it differently")
    superseded = await asyncio.wait_for(first, WAIT)
    result = await asyncio.wait_for(second, WAIT)

    assert superseded["outcome"] == "superseded" and superseded["runId"] == first_id
    assert superseded["error"] == "a newer run on this document replaced it"
    assert result["outcome"] == "completed" and result["answer"] == "the second run"
    assert result["runId"] != first_id
    stored = ReceiptStore(editor.state_dir).load(first_id)
    assert stored is not None and stored.outcome == "superseded"


async def test_a_run_on_another_document_goes_on(launch: Launch) -> None:
    editor = await launch(Hang(), answer("other file"))
    (editor.root / "other.py").write_text("x = 1\n", encoding="utf-8")
    _, first, first_id = await hanging_run(editor)

    _, second = editor.fix("other.py")
    result = await asyncio.wait_for(second, WAIT)

    assert result["outcome"] == "completed"
    assert not first.done()
    assert await editor.command(CANCEL, {"runId": first_id}) == {"cancelled": True}
    assert (await asyncio.wait_for(first, WAIT))["outcome"] == "cancelled"


async def test_shutdown_keeps_an_open_review_for_resume(launch: Launch) -> None:
    editor = await launch(FIX)
    editor.open()
    _, answer_ = editor.fix()
    await until(editor.rune_diagnostics, "the pending edit's diagnostic")
    [token] = editor.progress_tokens()
    run_id = token.removeprefix("rune/")

    await editor.shutdown()
    # Its request ends either way (shutdown may cancel it before the answer goes out).
    with contextlib.suppress(CommandError):
        await asyncio.wait_for(answer_, WAIT)
    end = editor.progress_end(token)
    assert (
        end == "cancelled · 1 edit pending · interrupted with a review open; "
        f"continue it with rune.resume {run_id}"
    )

    # The next server names the run and continues it where it stopped.
    again = await launch(answer("Fixed the sign."))
    [shown] = await until(
        lambda: [
            m["params"]["message"]
            for m in again.notifications(types.WINDOW_SHOW_MESSAGE)
            if "interrupted" in m["params"]["message"]
        ],
        "the interrupted run announced",
    )
    assert run_id in shown and "rune.resume" in shown
    again.open()
    resumed = again.command(RESUME, {"runId": run_id})
    [diagnostic] = await until(again.rune_diagnostics, "the review offered again")
    assert await again.command("rune.acceptEdit", diagnostic.data) == {"status": "applied"}
    result = await asyncio.wait_for(resumed, WAIT)

    assert result["outcome"] == "completed" and result["runId"] == run_id
    assert [e["status"] for e in result["edits"]] == ["applied"]
    assert "return a + b" in again.buffers[again.uri()].text


async def test_resume_refuses_a_run_that_is_still_going(launch: Launch) -> None:
    editor = await launch(Hang())
    _, answer_, run_id = await hanging_run(editor)

    error = await editor.error_of(editor.command(RESUME, {"runId": run_id}))

    assert error.code == types.ErrorCodes.InvalidParams
    assert f"run {run_id} is still running" in str(error)
    await editor.command(CANCEL, {"runId": run_id})
    await asyncio.wait_for(answer_, WAIT)


async def test_resume_of_an_unknown_or_unsafe_run_id_is_invalid_params(launch: Launch) -> None:
    editor = await launch()

    unknown = await editor.error_of(editor.command(RESUME, {"runId": "nothing-here"}))
    unsafe = await editor.error_of(editor.command(RESUME, {"runId": "../escape"}))

    assert "no interrupted run nothing-here" in str(unknown)
    assert unsafe.code == types.ErrorCodes.InvalidParams and "rune.resume" in str(unsafe)


async def test_cancel_before_any_run_is_false(launch: Launch) -> None:
    editor = await launch()
    assert await editor.command(CANCEL, {"runId": "r1"}) == {"cancelled": False}
    error = await editor.error_of(editor.command(CANCEL, {}))
    assert isinstance(error, CommandError) and "runId" in str(error)


@pytest.mark.parametrize(
    ("saves", "verified", "said"),
    [(True, True, "passed (exit 0)"), (False, None, "ran, but unsaved editor buffers")],
)
async def test_the_check_runs_on_saved_documents_only(
    launch: Launch, saves: bool, verified: bool | None, said: str
) -> None:
    check = f"{shlex.quote(sys.executable)} -c pass"
    editor = await launch(FIX, answer("Fixed."), saves=saves, checkCommand=check)
    editor.open()
    _, answer_ = editor.fix()
    [diagnostic] = await until(editor.rune_diagnostics, "the pending edit's diagnostic")
    await editor.command("rune.acceptEdit", diagnostic.data)

    result = await asyncio.wait_for(answer_, WAIT)

    assert result["verified"] is verified
    assert len(editor.requests("rune/saveDocuments")) == int(saves)
    assert said in result["answer"]


async def test_a_run_superseded_during_its_review_leaves_nothing_to_resume(
    launch: Launch,
) -> None:
    # The server keeps an interrupted review for rune.resume; a superseded one is over.
    editor = await launch(FIX, answer("the second run"))
    editor.open()
    _, first = editor.fix()
    await until(editor.rune_diagnostics, "the first run's pending edit")
    [token] = editor.progress_tokens()
    first_id = token.removeprefix("rune/")
    assert PendingStore(editor.state_dir).load(first_id) is not None

    _, second = editor.fix(instruction="do it differently")
    superseded = await asyncio.wait_for(first, WAIT)
    result = await asyncio.wait_for(second, WAIT)

    assert (superseded["outcome"], superseded["error"]) == (
        "superseded",
        "a newer run on this document replaced it",
    )
    assert [e["status"] for e in superseded["edits"]] == ["pending"]
    assert PendingStore(editor.state_dir).load(first_id) is None
    assert editor.rune_diagnostics() == []
    assert result["outcome"] == "completed"
