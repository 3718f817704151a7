"""Review mode A (a VS Code-like client with change-annotation support), end to end.

One `workspace/applyEdit` per pending edit, a `documentChanges` edit pinned to the open
document's version with `AnnotatedTextEdit`s under an annotation that needs confirmation, and
the run told what actually landed: applied, partial, rejected or stale.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.doubles.model_double import ModelDouble, Reply
from tests.e2e.conftest import APP_PY, Launch
from tests.e2e.editor import ApplyPolicy, Typing
from tests.e2e.scenario import calls, disk, edit, told

FIXED_ADD = APP_PY.replace("a - b", "a + b")
ADD_AND_MUL_OLD = "    return a - b\n\n\ndef mul(a, b):\n    return a + b\n"
ADD_AND_MUL_NEW = "    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"


def document_edits(params: types.ApplyWorkspaceEditParams) -> list[types.TextDocumentEdit]:
    return [c for c in params.edit.document_changes or () if isinstance(c, types.TextDocumentEdit)]


async def test_accept_applies_the_annotated_edit_to_the_buffer_only(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(
        edit("app.py", "return a - b", "return a + b", text="add must add"),
        Reply(text="Fixed add."),
    )
    editor = await launch("vscode")
    editor.open("app.py")

    result = await editor.fix("app.py")

    assert result.outcome == "completed" and result.error is None
    assert result.answer == "Fixed add."
    assert result.statuses() == [("edit_file", "applied")]
    assert result.edits[0].path == "app.py"  # workspace-relative
    assert result.calls() == [("edit_file", "ok")]
    assert (result.iterations_used, result.iteration_budget) == (2, 8)
    assert result.verified is None
    assert result.receipt is not None and disk(Path(result.receipt)) is not None

    [record] = editor.apply_records
    assert record.params.label == "rune: edit_file app.py"
    assert record.params.edit.changes is None
    [document_edit] = document_edits(record.params)
    assert document_edit.text_document.uri == editor.uri("app.py")
    assert document_edit.text_document.version == 1
    [hunk] = document_edit.edits
    assert isinstance(hunk, types.AnnotatedTextEdit)
    assert hunk.range == types.Range(
        start=types.Position(line=1, character=0), end=types.Position(line=2, character=0)
    )
    annotation = (record.params.edit.change_annotations or {})[hunk.annotation_id]
    assert annotation.needs_confirmation is True
    assert annotation.label == "rune: edit_file app.py"
    assert annotation.description == "add must add"

    assert editor.text("app.py") == FIXED_ADD
    assert disk(workspace / "app.py") == APP_PY  # accepted, but not saved by the editor
    assert "it was applied" in told(double)


async def test_reject_leaves_everything_as_it_was_and_tells_the_model(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="Left it."))
    editor = await launch("vscode")
    editor.open("app.py")
    editor.default_apply = ApplyPolicy(accept=False)

    result = await editor.fix("app.py")

    assert result.outcome == "completed"
    assert result.statuses() == [("edit_file", "rejected")]
    assert result.calls() == [("edit_file", "denied")]
    assert len(editor.apply_records) == 1
    assert editor.text("app.py") == APP_PY
    assert disk(workspace / "app.py") == APP_PY
    assert "The user rejected this change" in told(double)


async def test_partial_accept_keeps_the_ticked_hunks_and_reports_which(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(
        edit("app.py", ADD_AND_MUL_OLD, ADD_AND_MUL_NEW, text="fix add and mul"),
        edit("app.py", 'return "hi " + name', 'return "hello " + name'),
        Reply(text="Done."),
    )
    editor = await launch("vscode")
    editor.open("app.py")
    # VS Code's preview: the user ticks only the first hunk; then unticks the only hunk and
    # still presses Apply (the editor answers `applied: true`, and nothing changes).
    editor.apply_policies.extend([ApplyPolicy(keep=frozenset({0})), ApplyPolicy(keep=frozenset())])

    result = await editor.fix("app.py")

    first, second = editor.apply_records
    [document_edit] = document_edits(first.params)
    assert len(document_edit.edits) == 2
    assert all(isinstance(e, types.AnnotatedTextEdit) for e in document_edit.edits)
    assert result.statuses() == [("edit_file", "partial"), ("edit_file", "rejected")]
    assert "kept hunk 1 of 2" in result.edits[0].detail
    assert editor.text("app.py") == FIXED_ADD  # only the ticked hunk landed
    assert disk(workspace / "app.py") == APP_PY
    # Each later turn was told what landed.
    assert "accepted only part of the change" in told(double, 1)
    assert "discarded the only hunk" in told(double, 2)
    # The second edit was computed on the partially edited buffer, so it pins version 2.
    assert document_edits(second.params)[0].text_document.version == 2


async def test_an_edit_refused_after_typing_elsewhere_comes_back_rebased_without_a_turn(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(
        edit("app.py", "return a - b", "return a + b"),
        Reply(text="Fixed on the new text."),
    )
    editor = await launch("vscode")
    editor.open("app.py")
    # The user types elsewhere in the document while the preview is open: VS Code then refuses
    # the edit for the old version (`applied: false`, no reason). Issue 27 point 8: the same
    # proposal comes back rebased on the new text, and no model turn is spent on it.
    editor.apply_policies.append(ApplyPolicy(type_first=Typing("app.py", "greet", "welcome")))

    result = await editor.fix("app.py")

    assert result.statuses() == [("edit_file", "applied")]
    assert [r.result.applied for r in editor.apply_records if r.result] == [False, True]
    assert document_edits(editor.apply_records[1].params)[0].text_document.version == 2
    assert editor.text("app.py") == FIXED_ADD.replace("greet", "welcome")
    assert disk(workspace / "app.py") == APP_PY
    assert len(double.chat_requests) == 2  # the fix, and the answer after it landed


async def test_write_file_creates_a_new_file_through_create_file(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(
        calls(("write_file", {"path": "pkg/util.py", "content": "VALUE = 1\n"})),
        Reply(text="Created."),
    )
    editor = await launch("vscode")
    editor.open("app.py")
    editor.default_apply = ApplyPolicy(save=True)

    result = await editor.fix("app.py")

    assert result.statuses() == [("write_file", "applied")]
    assert result.edits[0].path == "pkg/util.py"
    [record] = editor.apply_records
    create, text_edit = record.params.edit.document_changes or ()
    assert isinstance(create, types.CreateFile) and create.uri == editor.uri("pkg/util.py")
    assert create.options is not None and create.options.overwrite is False
    assert isinstance(text_edit, types.TextDocumentEdit)
    assert text_edit.text_document.version is None
    [insert] = text_edit.edits
    assert isinstance(insert, types.AnnotatedTextEdit) and insert.new_text == "VALUE = 1\n"
    assert disk(workspace / "pkg/util.py") == "VALUE = 1\n"  # the user saved after accepting


async def test_one_apply_edit_at_a_time_even_for_two_edits_in_one_turn(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    (workspace / "util.py").write_text("X = 1\n", encoding="utf-8")
    double.script(
        calls(
            ("edit_file", {"path": "app.py", "old_text": "a - b", "new_text": "a + b"}),
            ("edit_file", {"path": "util.py", "old_text": "X = 1", "new_text": "X = 2"}),
        ),
        Reply(text="Both fixed."),
    )
    editor = await launch("vscode")
    editor.open("app.py")  # util.py is not open: the editor opens it to apply the edit
    editor.apply_policies.append(ApplyPolicy(delay=0.3))  # the first preview stays open a while

    result = await editor.fix("app.py")

    assert result.statuses() == [("edit_file", "applied"), ("edit_file", "applied")]
    first, second = editor.apply_records
    assert first.answered_seq is not None and second.received_seq >= first.answered_seq
    assert editor.max_edits_in_flight == 1
    assert document_edits(second.params)[0].text_document.version is None  # not open then
    assert editor.text("util.py") == "X = 2\n"
    assert disk(workspace / "util.py") == "X = 1\n"
