from __future__ import annotations

from lsprotocol.converters import get_converter
from lsprotocol.types import CodeActionKind, Diagnostic, DiagnosticSeverity, Position, Range

from rune_lsp.interface import ACCEPT_EDIT, REJECT_EDIT, SHOW_DIFF
from rune_lsp.review import (
    compute_hunks,
    hunk_diagnostics,
    review_code_actions,
)

from .samples import edit_of, numbered


def rng(a: int, b: int, c: int, d: int) -> Range:
    return Range(start=Position(line=a, character=b), end=Position(line=c, character=d))


ACTIONS = "Code actions: Accept hunk / Reject hunk / Accept edit / Reject edit / Show diff."


def diagnostics_for(
    old: str | None, new: str, reason: str = "", encoding: str | None = None
) -> list[Diagnostic]:
    edit = edit_of(old, new, edit_id="edit-9", reason=reason)
    hunks = compute_hunks(old or "", new)
    return hunk_diagnostics(edit, hunks, total=len(hunks), text=old or "", encoding=encoding)


def diagnostic_for(
    old: str | None, new: str, reason: str = "", encoding: str | None = None
) -> Diagnostic:
    [diagnostic] = diagnostics_for(old, new, reason, encoding)
    return diagnostic


def test_one_diagnostic_per_hunk_names_the_edit_and_the_hunk() -> None:
    old = numbered(30)
    new = old.replace("line 3\n", "x\n").replace("line 8\n", "y\n").replace("line 20\n", "")
    found = diagnostics_for(old, new, reason="Rename the helper.\nIt is clearer.")
    assert [d.range for d in found] == [
        rng(3, 0, 3, 6),
        rng(8, 0, 8, 6),
        rng(20, 0, 20, 7),
    ]
    diagnostic = found[1]
    assert diagnostic.severity is DiagnosticSeverity.Information
    assert diagnostic.source == "rune"
    assert diagnostic.code == "edit-9"
    assert diagnostic.data == {"editId": "edit-9", "hunkId": 2}
    assert diagnostic.message == (
        f"rune: proposed edit_file (hunk 2 of 3): Rename the helper.\n1 - line 8\n2 + y\n{ACTIONS}"
    )
    assert found[2].message.splitlines()[1:-1] == ["1 - line 20"]


def test_message_without_a_reason() -> None:
    message = diagnostic_for("a\n", "b\n").message
    assert message == f"rune: proposed edit_file (hunk 1 of 1).\n1 - a\n2 + b\n{ACTIONS}"


def test_message_adds_a_full_stop_and_cuts_long_reasons_and_long_hunks() -> None:
    message = diagnostic_for("a\n", "b\n", reason="\n  fix it\n").message
    assert "(hunk 1 of 1): fix it.\n" in message
    long = diagnostic_for("a\n", "b\n", reason="w" * 500).message
    assert "w" * 197 + "..." in long and "w" * 198 not in long
    many = diagnostic_for("a\n", "".join(f"{'x' * 200} {i}\n" for i in range(20))).message
    shown = many.splitlines()
    assert shown[12] == "12 + " + "x" * 117 + "..."
    assert shown[13] == "... 9 more changed lines (Show diff)"


def test_range_of_an_insertion_at_the_end_stays_inside_the_document() -> None:
    old = "a\nbb\n"
    assert diagnostic_for(old, old + "c\n").range == rng(1, 0, 1, 2)


def test_range_of_a_pure_insertion_marks_the_line_it_goes_before() -> None:
    assert diagnostic_for("a\nb\nc\n", "a\nnew\nb\nc\n").range == rng(1, 0, 1, 1)


def test_range_end_is_measured_in_the_encoding() -> None:
    old = "x\n😀😀\n"
    new = "x\nsmile\n"
    assert diagnostic_for(old, new).range == rng(1, 0, 1, 4)
    assert diagnostic_for(old, new, encoding="utf-8").range == rng(1, 0, 1, 8)
    assert diagnostic_for(old, new, encoding="utf-32").range == rng(1, 0, 1, 2)


def test_new_file_diagnostic_sits_at_the_start_and_says_new_file() -> None:
    diagnostic = diagnostic_for(None, "a\nb\n", reason="Add a module")
    assert diagnostic.range == rng(0, 0, 0, 0)
    assert diagnostic.message.startswith(
        "rune: proposed edit_file (new file, hunk 1 of 1): Add a module.\n1 + a\n2 + b\n"
    )


def test_new_file_flag_can_be_given_by_the_caller() -> None:
    edit = edit_of(None, "a\n")
    hunks = compute_hunks("", "a\n")
    [diagnostic] = hunk_diagnostics(edit, hunks, total=1, text="", new_file=False)
    assert "new file" not in diagnostic.message


def test_emptying_a_file_marks_its_lines() -> None:
    assert diagnostic_for("a\nbcd\n", "").range == rng(0, 0, 1, 3)


def test_code_actions_of_a_hunk_come_after_the_edit_actions() -> None:
    diagnostic = diagnostic_for("a\n", "b\n")
    actions = review_code_actions("edit-9", diagnostic, hunk_id=1)
    assert [a.title for a in actions] == [
        "Accept edit",
        "Reject edit",
        "Show diff",
        "Accept hunk",
        "Reject hunk",
    ]
    assert [a.command.arguments for a in actions[3:] if a.command] == [
        [{"editId": "edit-9", "hunkId": 1}],
        [{"editId": "edit-9", "hunkId": 1}],
    ]
    assert [a.command.command for a in actions[3:] if a.command] == [
        "rune.acceptHunk",
        "rune.rejectHunk",
    ]


def test_code_actions_accept_reject_and_show_diff() -> None:
    diagnostic = diagnostic_for("a\n", "b\n")
    actions = review_code_actions("edit-9", diagnostic)
    assert [a.title for a in actions] == ["Accept edit", "Reject edit", "Show diff"]
    assert [a.command.command for a in actions if a.command] == [
        ACCEPT_EDIT,
        REJECT_EDIT,
        SHOW_DIFF,
    ]
    assert [ACCEPT_EDIT, REJECT_EDIT, SHOW_DIFF] == [
        "rune.acceptEdit",
        "rune.rejectEdit",
        "rune.showDiff",
    ]
    for action in actions:
        assert action.kind is CodeActionKind.QuickFix
        assert action.diagnostics == [diagnostic]
        assert action.command is not None and action.command.title == action.title
        assert action.command.arguments == [{"editId": "edit-9"}]


def test_code_actions_serialize_with_the_edit_id() -> None:
    diagnostic = diagnostic_for("a\n", "b\n")
    payload = get_converter().unstructure(review_code_actions("edit-9", diagnostic))
    assert payload[2]["kind"] == "quickfix"
    assert payload[2]["command"] == {
        "title": "Show diff",
        "command": "rune.showDiff",
        "arguments": [{"editId": "edit-9"}],
    }
    assert payload[0]["diagnostics"][0]["data"] == {"editId": "edit-9", "hunkId": 1}


def test_a_checked_candidates_diagnostic_says_how_the_check_went() -> None:
    edit = edit_of("a\n", "b\n", reason="Fix it.").model_copy(
        update={"checked": "passed", "check_note": "passes `pytest -q`"}
    )
    [diagnostic] = hunk_diagnostics(edit, compute_hunks("a\n", "b\n"), total=1, text="a\n")
    assert "Fix it. · passes `pytest -q`" in diagnostic.message
