"""The editor answers a `workspace/applyEdit` with something that is no ApplyWorkspaceEditResult.

pygls dropped such an answer and the run waited for ever while holding the server-wide review
lock, so every later review hung too (and a result-less answer crashed `rune.fixThis`). Each is
now a rejection with its reason, the run ends with a receipt, nothing is left for resume, and
the next review goes through.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.doubles.model_double import ModelDouble, Reply
from tests.e2e.conftest import APP_PY, Launch
from tests.e2e.editor import ApplyPolicy, FakeEditor, Kind
from tests.e2e.scenario import disk, edit, told
from tests.faults.receipts import pending_runs, stored_receipt

FIXED = APP_PY.replace("a - b", "a + b")

#: Answers that parse as JSON but are no ApplyWorkspaceEditResult (`@ID@`: the request's id).
UNUSABLE = {
    "result null": '{"jsonrpc": "2.0", "id": @ID@, "result": null}',
    "result 42": '{"jsonrpc": "2.0", "id": @ID@, "result": 42}',
    "result []": '{"jsonrpc": "2.0", "id": @ID@, "result": []}',
    "result {}": '{"jsonrpc": "2.0", "id": @ID@, "result": {}}',
    "error a string": '{"jsonrpc": "2.0", "id": @ID@, "error": "no"}',
    "error code a string": '{"jsonrpc": "2.0", "id": @ID@, "error": {"code": "x", "message": 1}}',
    "error null": '{"jsonrpc": "2.0", "id": @ID@, "error": null}',
    "neither result nor error": '{"jsonrpc": "2.0", "id": @ID@}',
}
#: An answer cut short: no id can be read from it, so only a deadline ends the wait.
CUT = '{"jsonrpc": "2.0", "id": @ID@, "result": {"appl'


async def fix_with_answer(editor: FakeEditor, double: ModelDouble, raw: str, told_why: str) -> None:
    """One run whose edit gets `raw` as the editor's answer, then a second run on the same
    server whose edit is accepted normally (it hung behind the first one's lock). The model
    is told `told_why`."""
    double.script(
        edit("app.py", "return a - b", "return a + b"),
        Reply(text="Left it."),
        edit("app.py", "return a - b", "return a + b"),
        Reply(text="Fixed."),
    )
    editor.open("app.py")
    editor.apply_policies.append(ApplyPolicy(raw=raw, accept=False))
    if editor.kind == "neovim":
        fix = editor.start_fix("app.py")
        diagnostic = await editor.pending_review(editor.uri("app.py"))
        assert await editor.review(editor.uri("app.py"), diagnostic, "Accept edit") == {
            "status": "rejected"
        }
        first = await fix.result()
        second_fix = editor.start_fix("app.py")
        diagnostic = await editor.pending_review(editor.uri("app.py"))
        await editor.review(editor.uri("app.py"), diagnostic, "Accept edit")
        second = await second_fix.result()
    else:
        first = await editor.fix("app.py")
        second = await editor.fix("app.py")

    assert first.outcome == "completed", first
    assert first.statuses() == [("edit_file", "rejected")]
    stored_receipt(editor.state_dir, first)
    assert f"the edit was not applied: {told_why}" in told(double, 1)
    assert pending_runs(editor.state_dir) == []

    assert second.statuses() == [("edit_file", "applied")]
    assert editor.text("app.py") == FIXED


@pytest.mark.parametrize("kind", ["vscode", "neovim"])
@pytest.mark.parametrize("answer", list(UNUSABLE))
async def test_an_unusable_apply_answer_is_a_rejection_and_frees_the_review(
    launch: Launch, double: ModelDouble, workspace: Path, kind: Kind, answer: str
) -> None:
    editor = await launch(kind)

    await fix_with_answer(editor, double, UNUSABLE[answer], "the editor's unusable answer: ")

    assert disk(workspace / "app.py") == APP_PY
    stderr = "".join(editor.client.stderr_lines)
    assert "Traceback" not in stderr
    assert "unusable answer to request rune-" in stderr
    assert not [m for m in editor.shown_messages() if "Error in server" in m]


async def test_an_apply_answer_cut_short_is_a_rejection_once_the_wait_is_over(
    launch: Launch, double: ModelDouble
) -> None:
    editor = await launch("vscode", env={"RUNE_REVIEW_WAIT": "1"})

    await fix_with_answer(editor, double, CUT, "the editor did not answer within 1 s")

    stderr = "".join(editor.client.stderr_lines)
    assert "Traceback" not in stderr
    assert "unreadable message from the client" in stderr


async def test_an_edit_that_landed_counts_as_applied_whatever_the_answer_said(
    launch: Launch, double: ModelDouble
) -> None:
    # The editor applied the edit, then answered `result: true` instead of `{applied: true}`.
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="Fixed."))
    editor = await launch("vscode")
    editor.open("app.py")
    editor.apply_policies.append(ApplyPolicy(raw='{"jsonrpc": "2.0", "id": @ID@, "result": true}'))

    result = await editor.fix("app.py")

    assert result.statuses() == [("edit_file", "applied")]
    assert editor.text("app.py") == FIXED
    assert "(the editor's unusable answer: " in told(double)
