"""Review mode B (a Neovim-like client: no change annotations), end to end.

Each pending edit is an Information diagnostic (source `rune`) with Accept / Reject / Show diff
code actions; only an accept sends a plain `workspace/applyEdit`, and the diagnostic goes away
once the edit is resolved.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.doubles.model_double import ModelDouble, Reply
from tests.e2e.conftest import APP_PY, Launch
from tests.e2e.editor import ApplyPolicy, FakeEditor, Typing
from tests.e2e.scenario import calls, disk, edit, told

FIXED_ADD = APP_PY.replace("a - b", "a + b")


def apply_requests_before(editor: FakeEditor, method_seq: int) -> int:
    return sum(
        1
        for t in editor.client.traffic[:method_seq]
        if t.direction == "in" and t.method == types.WORKSPACE_APPLY_EDIT
    )


def command_seq(editor: FakeEditor, command: str) -> int:
    return next(
        t.seq
        for t in editor.client.traffic
        if t.method == types.WORKSPACE_EXECUTE_COMMAND and t.params.command == command
    )


async def test_accept_sends_a_plain_edit_only_after_the_accept(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(
        edit("app.py", "return a - b", "return a + b", text="add must add"), Reply(text="Fixed.")
    )
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    diagnostic = await editor.pending_review(uri)

    assert diagnostic.severity == types.DiagnosticSeverity.Information
    assert diagnostic.range == types.Range(
        start=types.Position(line=1, character=0), end=types.Position(line=1, character=16)
    )
    assert "edit_file" in diagnostic.message and "add must add" in diagnostic.message
    assert editor.apply_records == []  # nothing is sent before the user decides
    actions = await editor.code_actions(uri, diagnostic.range, [diagnostic])
    titles = [a.title for a in actions]
    assert titles[:3] == ["Accept edit", "Reject edit", "Show diff"]
    assert "Rune: Fix this" in titles

    shown = await editor.review(uri, diagnostic, "Show diff")
    assert "-    return a - b" in shown["diff"] and "+    return a + b" in shown["diff"]
    assert any("+    return a + b" in m for m in editor.shown_messages())
    assert editor.apply_records == []

    answer = await editor.review(uri, diagnostic, "Accept edit")
    result = await fix.result()

    assert answer == {"status": "applied"}
    assert result.outcome == "completed"
    assert result.statuses() == [("edit_file", "applied")]
    assert result.edits[0].path == "app.py"
    [record] = editor.apply_records
    assert record.params.edit.change_annotations is None
    [document_edit] = record.params.edit.document_changes or ()
    assert isinstance(document_edit, types.TextDocumentEdit)
    assert document_edit.text_document.version == 1
    assert all(type(e) is types.TextEdit for e in document_edit.edits)
    assert apply_requests_before(editor, command_seq(editor, "rune.acceptEdit")) == 0
    assert editor.rune_diagnostics(uri) == []  # resolved: the diagnostic is gone
    assert editor.text("app.py") == FIXED_ADD
    assert disk(workspace / "app.py") == APP_PY
    assert "it was applied" in told(double)


async def test_reject_sends_no_edit_and_clears_the_diagnostic(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="Left it."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    diagnostic = await editor.pending_review(uri)
    answer = await editor.review(uri, diagnostic, "Reject edit")
    result = await fix.result()

    assert answer == {"status": "rejected"}
    assert result.statuses() == [("edit_file", "rejected")]
    assert editor.apply_records == []
    assert editor.rune_diagnostics(uri) == []
    assert editor.text("app.py") == APP_PY and disk(workspace / "app.py") == APP_PY
    assert "The user rejected this change" in told(double)
    # A resolved edit cannot be resolved again.
    error = await editor.command_error("rune.acceptEdit", {"editId": result.edits[0].edit_id})
    assert "no pending edit" in error


async def test_typing_on_the_same_lines_makes_the_edit_stale_at_once(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="Noted."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    diagnostic = await editor.pending_review(uri)
    editor.type(Typing("app.py", "a - b", "a - b - 0"))
    result = await fix.result()  # its only hunk went stale: nothing is left to decide

    assert result.statuses() == [("edit_file", "stale")]
    assert editor.rune_diagnostics(uri) == []
    assert editor.apply_records == []  # the document is never overwritten
    assert editor.text("app.py") == APP_PY.replace("a - b", "a - b - 0")
    assert "the user changed those lines after the proposal" in told(double)
    # An accept that was already on its way learns what happened instead of an error.
    edit_id = result.edits[0].edit_id
    assert await editor.command("rune.acceptEdit", {"editId": edit_id}) == {"status": "stale"}
    assert diagnostic.data["editId"] == edit_id


async def test_typing_elsewhere_before_the_accept_is_kept_and_the_edit_rebased(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="Noted."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    diagnostic = await editor.pending_review(uri)
    editor.type(Typing("app.py", "greet", "welcome"))
    answer = await editor.review(uri, diagnostic, "Accept edit")
    result = await fix.result()

    assert answer == {"status": "applied"}
    assert result.statuses() == [("edit_file", "applied")]
    assert editor.text("app.py") == FIXED_ADD.replace("greet", "welcome")


async def test_an_edit_landing_on_a_newer_buffer_is_stale_not_applied(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="Noted."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")
    # The user types just as the accepted edit arrives: Neovim skips an edit for an older
    # version ("buffer newer than edits") yet answers `applied: true`.
    editor.default_apply = ApplyPolicy(type_first=Typing("app.py", "greet", "welcome"))

    fix = editor.start_fix("app.py")
    diagnostic = await editor.pending_review(uri)
    answer = await editor.review(uri, diagnostic, "Accept edit")
    result = await fix.result()

    assert [r.result.applied for r in editor.apply_records if r.result] == [True]
    assert answer == {"status": "stale"}
    assert result.statuses() == [("edit_file", "stale")]
    assert editor.text("app.py") == APP_PY.replace("greet", "welcome")


async def test_a_new_file_is_reviewed_on_the_document_the_run_started_from(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(
        calls(("write_file", {"path": "util.py", "content": "VALUE = 1\n"})),
        Reply(text="Created."),
    )
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    diagnostic = await editor.pending_review(uri)
    assert "new file" in diagnostic.message
    assert diagnostic.range.start == types.Position(line=0, character=0)
    assert disk(workspace / "util.py") is None

    answer = await editor.review(uri, diagnostic, "Accept edit")
    result = await fix.result()

    assert answer == {"status": "applied"}
    assert result.statuses() == [("write_file", "applied")]
    create, _text = editor.apply_records[0].params.edit.document_changes or ()
    assert isinstance(create, types.CreateFile)
    assert editor.text("util.py") == "VALUE = 1\n"
    assert editor.rune_diagnostics(uri) == []


async def test_positions_use_the_negotiated_utf8_encoding(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    (workspace / "emoji.py").write_text('A = 1\nS = "h\u00e9llo \U0001f600"', encoding="utf-8")
    double.script(
        edit("emoji.py", 'S = "h\u00e9llo \U0001f600"', 'S = "bye \U0001f600"'),
        Reply(text="ok"),
    )
    editor = await launch("neovim")
    assert editor.encoding == "utf-8"
    editor.open("emoji.py")
    uri = editor.uri("emoji.py")

    fix = editor.start_fix("emoji.py")
    diagnostic = await editor.pending_review(uri)
    # The last line, with no final newline: its end is counted in UTF-8 bytes.
    assert diagnostic.range.end == types.Position(line=1, character=len('S = "héllo 😀"'.encode()))
    await editor.review(uri, diagnostic, "Accept edit")
    result = await fix.result()

    assert result.statuses() == [("edit_file", "applied")]
    assert editor.text("emoji.py") == 'A = 1\nS = "bye \U0001f600"'


async def test_an_editor_that_syncs_its_buffer_late_still_counts_as_applied(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="Fixed."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")
    # Emacs' eglot applies the edit and answers `applied: true`, but sends its didChange only
    # when Emacs is idle: the server must not read the unchanged text as a refusal.
    editor.default_apply = ApplyPolicy(sync=False)

    fix = editor.start_fix("app.py")
    diagnostic = await editor.pending_review(uri)
    answer = await editor.review(uri, diagnostic, "Accept edit")
    result = await fix.result()

    assert answer == {"status": "applied"}
    assert result.statuses() == [("edit_file", "applied")]
    assert editor.received(types.WORKSPACE_APPLY_EDIT) and editor.unsynced
    editor.sync()
    assert editor.text("app.py") == FIXED_ADD


async def test_an_error_answer_to_the_edit_is_a_rejection(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="OK."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")
    # eglot asks "Server wants to edit ... Proceed?" itself and answers "no" with an error.
    editor.default_apply = ApplyPolicy(error="User cancelled server edit")

    fix = editor.start_fix("app.py")
    diagnostic = await editor.pending_review(uri)
    answer = await editor.review(uri, diagnostic, "Accept edit")
    result = await fix.result()

    assert answer == {"status": "rejected"}
    assert result.outcome == "completed"
    assert result.statuses() == [("edit_file", "rejected")]
    assert "User cancelled server edit" in result.edits[0].detail
    assert editor.text("app.py") == APP_PY and disk(workspace / "app.py") == APP_PY
