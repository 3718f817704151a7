"""Per-edit review through the editor, in process: every way an edit lands or does not."""

from __future__ import annotations

import itertools

import pytest
from lsprotocol import types

from rune_lsp.interface import ACCEPT_EDIT, REJECT_EDIT, SHOW_DIFF
from rune_lsp.server.review import PREVIEW_RESENDS
from tests.loop.fakes import answer, call, edit, turn
from tests.server.conftest import Launch
from tests.server.editor import APP_PY, Apply, finished, told, until

FIX = turn(edit("app.py", "return a - b", "return a + b"), text="Fixing the sign.")
FIXED = APP_PY.replace("return a - b", "return a + b")


def statuses(result: dict[str, object]) -> list[tuple[str, str]]:
    edits = result["edits"]
    assert isinstance(edits, list)
    return [(e["tool"], e["status"]) for e in edits]


# --- mode A ------------------------------------------------------------------------------------


async def test_mode_a_sends_the_annotated_edit_and_reports_what_landed(launch: Launch) -> None:
    editor = await launch(FIX, answer("Fixed."), kind="vscode")
    editor.open()

    result = await finished(editor.fix()[1])

    [request] = editor.requests(types.WORKSPACE_APPLY_EDIT)
    assert request["params"]["label"] == "rune: edit_file app.py"
    assert request["params"]["edit"]["changeAnnotations"]
    assert result["outcome"] == "completed"
    assert statuses(result) == [("edit_file", "applied")]
    assert editor.buffers[editor.uri()].text == FIXED
    assert (editor.root / "app.py").read_text() == APP_PY  # the editor's buffer, not the disk


async def test_mode_a_for_a_client_that_confirms_annotations_without_document_changes(
    launch: Launch,
) -> None:
    """Neovim 0.12 advertises change annotations but not documentChanges: still mode A."""
    editor = await launch(FIX, answer("Fixed."), kind="neovim-0.12")
    editor.open()

    result = await finished(editor.fix()[1])

    [request] = editor.requests(types.WORKSPACE_APPLY_EDIT)
    [annotation] = request["params"]["edit"]["changeAnnotations"].values()
    assert annotation["needsConfirmation"] is True
    assert editor.diagnostics.get(editor.uri(), []) == []  # no mode-B review
    assert statuses(result) == [("edit_file", "applied")]
    assert editor.buffers[editor.uri()].text == FIXED


@pytest.mark.parametrize(
    ("policy", "detail"),
    [
        (Apply(accept=False), "the user rejected the edit"),
        (Apply(accept=False, reason="read-only"), "the editor did not apply the edit: read-only"),
        (Apply(error="no thanks"), "the editor did not apply the edit: no thanks"),
    ],
)
async def test_mode_a_not_applied_is_a_rejection(
    launch: Launch, policy: Apply, detail: str
) -> None:
    editor = await launch(FIX, answer("Understood."), kind="vscode")
    editor.open()
    editor.applies.append(policy)

    result = await finished(editor.fix()[1])

    assert statuses(result) == [("edit_file", "rejected")]
    assert detail in told(editor)
    assert editor.buffers[editor.uri()].text == APP_PY


async def test_mode_a_refused_after_typing_elsewhere_is_sent_again_rebased(
    launch: Launch,
) -> None:
    """Issue 27 point 8: VS Code refuses a Refactor Preview the user typed under (`applied:
    false`, no reason); the proposal comes back on the new text, no model turn spent."""
    editor = await launch(FIX, answer("Fixed."), kind="vscode")
    editor.open()
    editor.applies.append(Apply(accept=False, type_first=("def mul", "def times")))

    result = await finished(editor.fix()[1])

    assert statuses(result) == [("edit_file", "applied")]
    assert len(editor.requests(types.WORKSPACE_APPLY_EDIT)) == 2
    assert editor.buffers[editor.uri()].text == FIXED.replace("def mul", "def times")
    assert len(editor.model.calls) == 2  # the proposal and the answer: no turn on the refusal


async def test_mode_a_refused_after_typing_that_was_undone_is_sent_again(launch: Launch) -> None:
    """The user typed and undid it while the preview was open: the text is the one the edit
    was built on, the version newer, and VS Code refuses the edit for the older version (no
    reason). That is no "no" from the user: the proposal comes back for the new version."""
    editor = await launch(FIX, answer("Fixed."), kind="vscode")
    editor.open()
    editor.applies.append(Apply(accept=False, type_first=("def mul", "def mul")))

    result = await finished(editor.fix()[1])

    assert statuses(result) == [("edit_file", "applied")]
    first, second = editor.requests(types.WORKSPACE_APPLY_EDIT)
    versions = [
        r["params"]["edit"]["documentChanges"][0]["textDocument"]["version"]
        for r in (first, second)
    ]
    assert versions[1] == versions[0] + 1
    assert editor.buffers[editor.uri()].text == FIXED
    assert len(editor.model.calls) == 2  # no turn spent on the refusal


async def test_mode_a_discarded_preview_of_a_file_it_opened_is_the_users_no(
    launch: Launch,
) -> None:
    """The file was not open: VS Code opens it for its preview (a didOpen, version 1), then the
    user discards the preview. Opening is no typing: a rejection, not a second preview."""
    editor = await launch(FIX, answer("Understood."), kind="vscode")
    editor.applies.append(Apply(accept=False, hold=True))

    _, answer_ = editor.fix()
    await until(lambda: editor.held, "the applyEdit")
    editor.open()
    editor.release()
    result = await finished(answer_)

    assert statuses(result) == [("edit_file", "rejected")]
    assert len(editor.requests(types.WORKSPACE_APPLY_EDIT)) == 1
    assert "the user rejected the edit" in told(editor)


async def test_mode_a_refused_while_the_user_keeps_typing_is_stale_after_the_resends(
    launch: Launch,
) -> None:
    """Each preview is refused because the user typed elsewhere again: the proposal is sent
    PREVIEW_RESENDS times in all, then the edit is `stale` (never the user's `rejected`)."""
    editor = await launch(FIX, answer("I will read it again."), kind="vscode")
    editor.open()
    names = [f"def mul{'_' * i}" for i in range(PREVIEW_RESENDS + 1)]
    editor.applies.extend(
        Apply(accept=False, type_first=(old, new)) for old, new in itertools.pairwise(names)
    )

    result = await finished(editor.fix()[1])

    assert statuses(result) == [("edit_file", "stale")]
    assert len(editor.requests(types.WORKSPACE_APPLY_EDIT)) == PREVIEW_RESENDS
    assert "stale: the document changed after the edit was proposed" in told(editor)
    assert editor.buffers[editor.uri()].text == APP_PY.replace("def mul", names[-1])


async def test_mode_a_refused_after_typing_over_the_hunk_is_stale(launch: Launch) -> None:
    editor = await launch(FIX, answer("I will read it again."), kind="vscode")
    editor.open()
    editor.applies.append(Apply(accept=False, type_first=("return a - b", "return a * b")))

    result = await finished(editor.fix()[1])

    assert statuses(result) == [("edit_file", "stale")]
    assert len(editor.requests(types.WORKSPACE_APPLY_EDIT)) == 1
    assert "is stale: the user changed those lines" in told(editor)


async def test_mode_a_inline_review_typing_inside_the_only_hunk_is_stale(launch: Launch) -> None:
    """Issue 27 point 7: the VS Code extension's inline review answers "the user rejected it"
    when the user typed inside the only hunk; that typing is `stale`, as with two hunks."""
    editor = await launch(FIX, answer("I will read it again."), kind="vscode")
    editor.open()
    said = (
        "the user rejected it: the user edited inside hunk 1 during the review, "
        "so it was not applied"
    )
    editor.applies.append(
        Apply(accept=False, reason=said, type_first=("return a - b", "return a * b"))
    )

    result = await finished(editor.fix()[1])

    assert statuses(result) == [("edit_file", "stale")]
    assert "The user rejected this change" not in told(editor)
    assert said in told(editor)


async def test_mode_a_never_sends_an_edit_that_no_longer_fits(launch: Launch) -> None:
    # Both edits of the turn were proposed on the same line: once the first landed, the
    # second is refused at the last check before sending.
    second = edit("app.py", "return a - b", "return b - a")
    editor = await launch(turn(FIX.tool_calls[0], second), answer("Read it again."), kind="vscode")
    editor.open()

    result = await finished(editor.fix()[1])

    assert statuses(result) == [("edit_file", "applied"), ("edit_file", "stale")]
    assert len(editor.requests(types.WORKSPACE_APPLY_EDIT)) == 1
    assert editor.buffers[editor.uri()].text == FIXED


async def test_mode_a_applied_with_every_hunk_unticked_is_a_rejection(launch: Launch) -> None:
    editor = await launch(FIX, answer("Hm."), kind="vscode")
    editor.open()
    # VS Code answers `applied: true` when the user unticked every hunk: nothing changes.
    editor._changed = lambda uri, text: None  # type: ignore[method-assign]

    result = await finished(editor.fix()[1])

    assert statuses(result) == [("edit_file", "rejected")]
    assert "rejected: the user discarded" in told(editor)


# --- mode B ------------------------------------------------------------------------------------


async def test_mode_b_accept_applies_and_answers_the_status(launch: Launch) -> None:
    editor = await launch(FIX, answer("Fixed."))
    editor.open()
    _, answer_ = editor.fix()
    [diagnostic] = await until(editor.rune_diagnostics, "the pending edit's diagnostic")

    diff = await editor.command(SHOW_DIFF, diagnostic.data)
    assert "-    return a - b\n+    return a + b" in diff["diff"]
    actions = await editor.request(
        types.TEXT_DOCUMENT_CODE_ACTION,
        {
            "textDocument": {"uri": editor.uri()},
            "range": editor.server.protocol._converter.unstructure(diagnostic.range),
            "context": {"diagnostics": []},
        },
    )[1]
    assert [a["title"] for a in actions] == [
        "Accept edit",
        "Reject edit",
        "Show diff",
        "Accept hunk",
        "Reject hunk",
        "Rune: Fix this",
    ]
    assert await editor.command(ACCEPT_EDIT, diagnostic.data) == {"status": "applied"}
    result = await finished(answer_)

    assert statuses(result) == [("edit_file", "applied")]
    assert editor.buffers[editor.uri()].text == FIXED
    assert editor.rune_diagnostics() == []
    [request] = editor.requests(types.WORKSPACE_APPLY_EDIT)
    assert "changeAnnotations" not in request["params"]["edit"]  # a plain edit in mode B


async def test_mode_b_reject_sends_nothing(launch: Launch) -> None:
    editor = await launch(FIX, answer("Leaving it."))
    editor.open()
    _, answer_ = editor.fix()
    [diagnostic] = await until(editor.rune_diagnostics, "the pending edit's diagnostic")

    assert await editor.command(REJECT_EDIT, diagnostic.data) == {"status": "rejected"}
    result = await finished(answer_)

    assert statuses(result) == [("edit_file", "rejected")]
    assert editor.requests(types.WORKSPACE_APPLY_EDIT) == []
    assert "the user discarded the only hunk" in told(editor)


async def test_mode_b_accept_of_an_edit_the_user_typed_over_is_stale(launch: Launch) -> None:
    editor = await launch(FIX, answer("I will read it again."))
    editor.open()
    _, answer_ = editor.fix()
    [diagnostic] = await until(editor.rune_diagnostics, "the pending edit's diagnostic")
    editor.type("return a - b", "return a * b")

    assert await editor.command(ACCEPT_EDIT, diagnostic.data) == {"status": "stale"}
    result = await finished(answer_)

    assert statuses(result) == [("edit_file", "stale")]
    assert editor.requests(types.WORKSPACE_APPLY_EDIT) == []
    assert "return a * b" in editor.buffers[editor.uri()].text


async def test_mode_b_accept_not_applied_by_the_editor_is_rejected(launch: Launch) -> None:
    editor = await launch(FIX, answer("Understood."))
    editor.open()
    editor.applies.append(Apply(error="buffer is read-only"))
    _, answer_ = editor.fix()
    [diagnostic] = await until(editor.rune_diagnostics, "the pending edit's diagnostic")

    assert await editor.command(ACCEPT_EDIT, diagnostic.data) == {"status": "rejected"}
    assert statuses(await finished(answer_)) == [("edit_file", "rejected")]
    assert "buffer is read-only" in told(editor)


@pytest.mark.parametrize("command", [ACCEPT_EDIT, REJECT_EDIT, SHOW_DIFF])
async def test_an_unknown_edit_is_invalid_params(launch: Launch, command: str) -> None:
    editor = await launch()

    error = await editor.error_of(editor.command(command, {"editId": "e-none"}))

    assert error.code == types.ErrorCodes.InvalidParams
    assert f"{command}: no pending edit 'e-none'" in str(error)


# --- commands the agent runs ---------------------------------------------------------------


RUN = turn(call("run_command", {"command": "echo hi"}))


@pytest.mark.parametrize(
    ("answer_title", "error", "status", "told_text"),
    [
        ("Run", None, "applied", "hi"),
        ("Deny", None, "rejected", "the user denied running this command"),
        (None, "no UI", "rejected", "the editor did not ask the user"),
    ],
)
async def test_a_command_runs_only_when_the_user_says_run(
    launch: Launch, answer_title: str | None, error: str | None, status: str, told_text: str
) -> None:
    editor = await launch(RUN, answer("Ran it."))
    editor.message_answer, editor.message_error = answer_title, error

    result = await finished(editor.fix()[1])

    [request] = editor.requests(types.WINDOW_SHOW_MESSAGE_REQUEST)
    assert "rune wants to run: echo hi" in request["params"]["message"]
    assert statuses(result) == [("run_command", status)]
    assert told_text in told(editor)


async def test_no_answer_to_a_command_within_the_timeout_is_a_denial(launch: Launch) -> None:
    editor = await launch(RUN, answer("Not run."), requestTimeout=0.05)
    editor.message_answer = None

    result = await finished(editor.fix()[1])

    assert statuses(result) == [("run_command", "rejected")]
    assert "no answer within 0.05 s; not run" in told(editor)
    assert editor.notifications(types.CANCEL_REQUEST)  # the question is withdrawn
