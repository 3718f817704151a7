"""A run waiting for review survives the server: a new server offers it and `rune.resume`
continues it from its persisted state."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from tests.doubles.model_double import ModelDouble, Reply
from tests.e2e.conftest import APP_PY, Launch
from tests.e2e.editor import WAIT, ApplyPolicy
from tests.e2e.scenario import edit, told


async def test_a_run_waiting_for_review_survives_a_restart_and_is_resumed(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="Resumed and fixed."))
    first = await launch("neovim")
    first.open("app.py")
    uri = first.uri("app.py")
    first.start_fix("app.py")
    await first.pending_review(uri)
    run_id = (await first.run_token()).removeprefix("rune/")
    await first.close()  # shutdown/exit: the editor restarts the server
    assert first.exit_problem is None

    assert first.rune_diagnostics(uri) == []  # its review was taken away
    second = await launch("neovim", state_dir=first.state_dir)
    offered = await second.wait_for(
        lambda: [m for m in second.shown_messages() if run_id in m], "the interrupted run offered"
    )
    assert "rune.resume" in offered[0]
    second.open("app.py")
    resume = second.start_command("rune.resume", {"runId": run_id})
    diagnostic = await second.pending_review(uri)  # the pending edit is asked again
    answer = await second.review(uri, diagnostic, "Accept edit")
    result = await resume.result()

    assert answer == {"status": "applied"}
    assert result.run_id == run_id and result.outcome == "completed"
    assert result.answer == "Resumed and fixed."
    assert result.statuses() == [("edit_file", "applied")]
    assert second.text("app.py") == APP_PY.replace("a - b", "a + b")
    assert "it was applied" in told(double)
    assert len(double.chat_requests) == 2
    # Once finished it is gone: resuming again is refused with the reason.
    error = await second.command_error("rune.resume", {"runId": run_id})
    assert "no interrupted run" in error
    assert [t for t in second.received(types.WINDOW_SHOW_MESSAGE) if "Error" in t.message] == []


async def test_a_run_whose_server_crashed_during_a_preview_is_resumed(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="Fixed after all."))
    first = await launch("vscode")
    first.open("app.py")
    first.apply_policies.append(ApplyPolicy(delay=WAIT))  # the preview is open when it dies
    first.start_fix("app.py")
    await first.wait_for(lambda: first.apply_records, "the preview")
    run_id = (await first.run_token()).removeprefix("rune/")
    await first.crash()

    second = await launch("vscode", state_dir=first.state_dir)
    second.open("app.py")
    result = await second.start_command("rune.resume", {"runId": run_id}).result()

    assert result.outcome == "completed" and result.answer == "Fixed after all."
    assert result.statuses() == [("edit_file", "applied")]
    [preview] = second.apply_records  # asked again, as an edit of the current buffer
    assert preview.params.edit.change_annotations
    assert second.text("app.py") == APP_PY.replace("a - b", "a + b")


async def test_a_run_live_in_another_window_is_neither_offered_nor_resumed(
    launch: Launch, double: ModelDouble
) -> None:
    # Two editor windows, two servers, one state dir: the first one's run waits for review.
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="Fixed."))
    first = await launch("neovim")
    first.open("app.py")
    uri = first.uri("app.py")
    fix = first.start_fix("app.py")
    await first.pending_review(uri)
    run_id = (await first.run_token()).removeprefix("rune/")

    second = await launch("neovim", state_dir=first.state_dir)
    error = await second.command_error("rune.resume", {"runId": run_id})
    assert f"run {run_id} is live in another rune-lsp" in error
    await second.wait_for(  # the settings read at start, then the pulled ones: the offer is next
        lambda: sum("rune: ollama model" in m.message for m in second.client.log_messages) >= 2,
        "the settings pulled",
    )
    await asyncio.sleep(0.3)
    assert not [m for m in second.shown_messages() if run_id in m]

    # The owner still drives it to the end, alone.
    diagnostic = await first.pending_review(uri)
    assert await first.review(uri, diagnostic, "Accept edit") == {"status": "applied"}
    assert (await fix.result()).outcome == "completed"
    assert second.apply_records == [] and len(double.chat_requests) == 2


async def test_a_run_whose_server_was_killed_is_offered_by_another_window(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"))
    first = await launch("neovim")
    first.open("app.py")
    first.start_fix("app.py")
    await first.pending_review(first.uri("app.py"))
    run_id = (await first.run_token()).removeprefix("rune/")
    await first.crash()  # kill -9: its lock goes with it

    second = await launch("neovim", state_dir=first.state_dir)

    await second.wait_for(
        lambda: [m for m in second.shown_messages() if run_id in m], "the interrupted run offered"
    )
