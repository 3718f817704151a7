from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol.converters import get_converter
from lsprotocol.types import (
    AnnotatedTextEdit,
    CreateFile,
    TextDocumentEdit,
    TextEdit,
    WorkspaceEdit,
)

from rune_lsp.review import (
    HunkMismatchError,
    build_annotated_edit,
    build_plain_edit,
    compute_hunks,
    edit_label,
)
from tests.lsp_text import apply_text_edits

from .samples import edit_of, numbered

URI = "file:///ws/src/app.py"


def as_json(edit: WorkspaceEdit) -> dict[str, Any]:
    result: dict[str, Any] = get_converter().unstructure(edit)
    return result


def annotated(old: str | None, new: str, version: int | None = 7, **kw: Any) -> WorkspaceEdit:
    return build_annotated_edit(
        edit_of(old, new, edit_id="edit-3"),
        uri=URI,
        version=version,
        label="rune: edit_file src/app.py",
        description="rename the helper",
        **kw,
    )


def text_edits(edit: WorkspaceEdit) -> list[TextEdit | AnnotatedTextEdit]:
    changes = edit.document_changes or []
    documents = [change for change in changes if isinstance(change, TextDocumentEdit)]
    assert len(documents) == 1
    return [e for e in documents[0].edits if isinstance(e, TextEdit | AnnotatedTextEdit)]


def test_annotated_edit_has_one_annotated_text_edit_per_hunk_under_one_annotation() -> None:
    old = numbered(20)
    new = old.replace("line 2\n", "two\n").replace("line 15\n", "fifteen\n")
    payload = as_json(annotated(old, new))
    assert "changes" not in payload
    assert payload["changeAnnotations"] == {
        "edit-3": {
            "label": "rune: edit_file src/app.py",
            "needsConfirmation": True,
            "description": "rename the helper",
        }
    }
    (document,) = payload["documentChanges"]
    assert document["textDocument"] == {"uri": URI, "version": 7}
    assert [e["annotationId"] for e in document["edits"]] == ["edit-3", "edit-3"]
    assert [e["newText"] for e in document["edits"]] == ["two\n", "fifteen\n"]
    assert document["edits"][0]["range"] == {
        "start": {"line": 2, "character": 0},
        "end": {"line": 3, "character": 0},
    }


def test_document_not_open_is_sent_with_a_null_version() -> None:
    payload = as_json(annotated("a\n", "b\n", version=None))
    assert payload["documentChanges"][0]["textDocument"] == {"uri": URI, "version": None}


def test_new_file_is_created_first_without_overwriting_then_filled() -> None:
    payload = as_json(annotated(None, "print('hi')\n", version=4))
    create, fill = payload["documentChanges"]
    assert create == {
        "kind": "create",
        "uri": URI,
        "options": {"overwrite": False, "ignoreIfExists": False},
        "annotationId": "edit-3",
    }
    assert fill["textDocument"] == {"uri": URI, "version": None}
    assert fill["edits"] == [
        {
            "annotationId": "edit-3",
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "newText": "print('hi')\n",
        }
    ]
    assert payload["changeAnnotations"]["edit-3"]["needsConfirmation"] is True


def test_new_empty_file_is_only_created() -> None:
    edit = annotated(None, "")
    assert edit.document_changes is not None
    assert [type(change) for change in edit.document_changes] == [CreateFile]


def test_empty_description_is_left_out() -> None:
    edit = build_annotated_edit(
        edit_of("a\n", "b\n"), uri=URI, version=1, label="rune: edit_file x", description=""
    )
    assert edit.change_annotations is not None
    assert "description" not in as_json(edit)["changeAnnotations"]["e1"]


def test_plain_edit_has_the_same_hunks_and_no_annotations() -> None:
    old = numbered(20)
    new = old.replace("line 2\n", "two\n").replace("line 15\n", "")
    payload = as_json(build_plain_edit(edit_of(old, new), uri=URI, version=3))
    assert "changeAnnotations" not in payload
    (document,) = payload["documentChanges"]
    assert document["textDocument"]["version"] == 3
    assert all("annotationId" not in e for e in document["edits"])
    assert [e["newText"] for e in document["edits"]] == ["two\n", ""]


def test_plain_new_file_is_created_without_annotation() -> None:
    payload = as_json(build_plain_edit(edit_of(None, "x\n"), uri=URI, version=None))
    create, fill = payload["documentChanges"]
    assert create["kind"] == "create" and "annotationId" not in create
    assert create["options"] == {"overwrite": False, "ignoreIfExists": False}
    assert fill["edits"][0]["newText"] == "x\n"


def test_positions_follow_the_negotiated_encoding() -> None:
    old = "a\n😀😀"
    new = "a\nb\n"
    utf16 = text_edits(annotated(old, new))
    utf8 = text_edits(annotated(old, new, encoding="utf-8"))
    assert utf16[0].range.end.character == 4
    assert utf8[0].range.end.character == 8


def test_precomputed_hunks_are_used_and_checked() -> None:
    old, new = "a\nb\nc\n", "a\nB\nc\n"
    hunks = compute_hunks(old, new)
    assert len(text_edits(annotated(old, new, hunks=hunks))) == 1
    with pytest.raises(HunkMismatchError):
        annotated("x\ny\nz\n", new, hunks=hunks)


def test_label_names_the_tool_and_the_file() -> None:
    assert edit_label(edit_of("a", "b"), "src/app.py") == "rune: edit_file src/app.py"
    assert edit_label(edit_of(None, "b", tool="write_file"), "n.py") == "rune: write_file n.py"


PIECES = st.sampled_from(["a", "😀", "é", "\n", "\r\n", "\r", "tab\t", "𝄞"])
TEXTS = st.lists(PIECES, max_size=40).map("".join)


@settings(max_examples=300)
@given(TEXTS, TEXTS, st.sampled_from(["utf-8", "utf-16", "utf-32"]))
def test_an_editor_applying_the_edits_gets_the_new_text(old: str, new: str, encoding: str) -> None:
    # The reference applier resolves LSP positions independently of rune's own line code.
    for build in (annotated, _plain):
        edit = build(old, new, encoding=encoding)
        assert (
            apply_text_edits(old, text_edits(edit) if edit.document_changes else [], encoding)
            == new
        )


def _plain(old: str, new: str, **kw: Any) -> WorkspaceEdit:
    return build_plain_edit(edit_of(old, new), uri=URI, version=1, **kw)


def test_a_checked_candidates_label_says_how_the_check_went() -> None:
    note = "fails `pytest -q`: none of 4 candidate fixes passed it"
    edit = edit_of("a", "b").model_copy(update={"checked": "failed", "check_note": note})
    assert edit_label(edit, "app.py") == f"rune: edit_file app.py · {note}"
