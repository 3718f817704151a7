"""Per-hunk review in a plain-LSP editor (mode B), end to end.

Each hunk of a pending edit is its own diagnostic, resolved on its own (`rune.acceptHunk` /
`rune.rejectHunk`, optionally only some of its lines, optionally with a reason the model
hears); the hunks follow the user's typing; all of a turn's edits are open at once; inlay
hints and code lenses go only to clients that advertise them.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from tests.doubles.model_double import ModelDouble, Reply
from tests.e2e.conftest import APP_PY, Launch
from tests.e2e.editor import FakeEditor, Typing
from tests.e2e.scenario import calls, edit, told

#: One edit of three hunks: lines 2, 6 and 10 (1-based) of APP_PY.
THREE = (
    APP_PY.replace("a - b", "a + b", 1)
    .replace("return a + b\n\n\ndef greet", "return a * b\n\n\ndef greet")
    .replace('"hi "', '"hello "')
)
HUNK_1 = APP_PY.replace("a - b", "a + b", 1)


def three_hunks(text: str = "") -> Reply:
    return edit("app.py", APP_PY, THREE, text=text)


async def hunk_diagnostics(editor: FakeEditor, uri: str, count: int) -> list[types.Diagnostic]:
    """The pending hunks' diagnostics once there are `count` of them, in hunk order."""
    found = await editor.wait_for(
        lambda: (d := editor.rune_diagnostics(uri)) and len(d) == count and d,
        f"{count} rune diagnostics on {uri}",
    )
    return sorted(found, key=lambda d: (str(d.data["editId"]), d.data["hunkId"]))


def hunk(diagnostic: types.Diagnostic, **extra: Any) -> dict[str, Any]:
    return {"editId": diagnostic.data["editId"], "hunkId": diagnostic.data["hunkId"], **extra}


async def test_accept_one_of_three_hunks(launch: Launch, double: ModelDouble) -> None:
    double.script(three_hunks(), Reply(text="Done."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    first, second, third = await hunk_diagnostics(editor, uri, 3)
    assert [d.range.start.line for d in (first, second, third)] == [1, 5, 9]
    assert "1 -     return a - b\n2 +     return a + b" in first.message
    actions = [a.title for a in await editor.code_actions(uri, second.range, [second])]
    assert actions[:5] == ["Accept edit", "Reject edit", "Show diff", "Accept hunk", "Reject hunk"]

    assert await editor.review(uri, first, "Accept hunk") == {"status": "pending"}
    assert [d.data["hunkId"] for d in await hunk_diagnostics(editor, uri, 2)] == [2, 3]
    assert editor.apply_records == []  # nothing lands before the whole edit is decided
    assert await editor.review(uri, third, "Reject hunk") == {"status": "pending"}
    assert await editor.review(uri, second, "Reject hunk") == {"status": "partial"}
    result = await fix.result()

    assert result.statuses() == [("edit_file", "partial")]
    assert editor.text("app.py") == HUNK_1
    assert editor.rune_diagnostics(uri) == []
    assert "partially applied: kept hunk 1 of 3 (line 2)" in told(double)
    assert "the user discarded hunks 2, 3 (lines 6, 10)" in told(double)


async def test_a_rejected_hunks_reason_reaches_the_model(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(three_hunks(), Reply(text="Kept the print."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    _, second, _ = await hunk_diagnostics(editor, uri, 3)
    reason = "keep the debug print"
    answer = await editor.command("rune.rejectHunk", hunk(second, reason=reason))
    assert answer == {"status": "pending"}
    assert await editor.command("rune.acceptEdit", {"editId": second.data["editId"]}) == {
        "status": "partial"
    }
    result = await fix.result()

    assert result.statuses() == [("edit_file", "partial")]
    assert editor.text("app.py") == THREE.replace("return a * b", "return a + b")
    heard = told(double)
    assert "the user rejected hunk 2 of 3 (line 6): keep the debug print" in heard
    assert "kept hunk 1 of 3 (line 2); " in heard and "kept hunk 3 of 3 (line 10)" in heard


async def test_a_whole_edit_rejection_carries_its_reason(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(three_hunks(), Reply(text="Fine."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    first, _, _ = await hunk_diagnostics(editor, uri, 3)
    answer = await editor.command(
        "rune.rejectEdit", {"editId": first.data["editId"], "reason": "wrong file"}
    )
    result = await fix.result()

    assert answer == {"status": "rejected"}
    assert result.statuses() == [("edit_file", "rejected")]
    assert editor.apply_records == [] and editor.text("app.py") == APP_PY
    assert "the user rejected all 3 hunks (lines 2, 6, 10): wrong file." in told(double)


async def test_accept_two_of_three_lines_of_one_hunk(launch: Launch, double: ModelDouble) -> None:
    three_lines = "    total = a + b\n    print(total)\n    return total\n"
    double.script(edit("app.py", "    return a - b\n", three_lines), Reply(text="Ok."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    [diagnostic] = await hunk_diagnostics(editor, uri, 1)
    assert diagnostic.message.splitlines()[1:5] == [
        "1 -     return a - b",
        "2 +     total = a + b",
        "3 +     print(total)",
        "4 +     return total",
    ]
    wrong = await editor.command_error("rune.acceptHunk", hunk(diagnostic, lines=[5]))
    assert "changed lines 1-4" in wrong and "removed (-) lines first" in wrong
    # Remove the old line, add the first and the last of the three new ones.
    answer = await editor.command("rune.acceptHunk", hunk(diagnostic, lines=[1, 2, 4]))
    result = await fix.result()

    assert answer == {"status": "partial"}
    assert result.statuses() == [("edit_file", "partial")]
    assert editor.text("app.py") == APP_PY.replace(
        "    return a - b\n", "    total = a + b\n    return total\n"
    )
    assert "took effect -'return a - b', +'total = a + b', +'return total'" in told(double)
    assert "not +'print(total)'" in told(double)


async def test_typing_above_a_pending_hunk_moves_it_and_it_still_applies_exactly(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(edit("app.py", '"hi "', '"hello "'), Reply(text="Greeted."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    [before] = await hunk_diagnostics(editor, uri, 1)
    assert before.range.start.line == 9
    editor.type(Typing("app.py", "def add(a, b):", "import os\n\n\ndef add(a, b):"))
    moved = await editor.wait_for(
        lambda: [d for d in editor.rune_diagnostics(uri) if d.range.start.line == 12],
        "the hunk's diagnostic three lines lower",
    )
    answer = await editor.review(uri, moved[0], "Accept hunk")
    result = await fix.result()

    assert answer == {"status": "applied"}
    assert result.statuses() == [("edit_file", "applied")]
    typed = APP_PY.replace("def add(a, b):", "import os\n\n\ndef add(a, b):")
    assert editor.text("app.py") == typed.replace('"hi "', '"hello "')


async def test_typing_inside_a_hunk_makes_only_that_hunk_stale(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(three_hunks(), Reply(text="I will look again."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    first, _, _ = await hunk_diagnostics(editor, uri, 3)
    editor.type(Typing("app.py", "return a + b", "return a + b + 0"))
    left = await hunk_diagnostics(editor, uri, 2)
    assert [d.data["hunkId"] for d in left] == [1, 3]
    answer = await editor.command("rune.acceptEdit", {"editId": first.data["editId"]})
    result = await fix.result()

    assert answer == {"status": "partial"}
    assert result.statuses() == [("edit_file", "partial")]
    typed = APP_PY.replace("return a + b", "return a + b + 0")
    assert editor.text("app.py") == typed.replace("a - b", "a + b").replace('"hi "', '"hello "')
    heard = told(double)
    assert "hunk 2 of 3 (line 6) is stale: the user changed those lines" in heard
    assert "kept hunk 1 of 3 (line 2)" in heard and "kept hunk 3 of 3 (line 10)" in heard


async def test_three_edits_of_one_turn_are_open_at_once_and_resolved_in_any_order(
    launch: Launch, double: ModelDouble
) -> None:
    fixed_add = "# fixed\n    return a + b"
    double.script(
        calls(
            ("edit_file", {"path": "app.py", "old_text": "return a - b", "new_text": fixed_add}),
            (
                "edit_file",
                {"path": "app.py", "old_text": "return a + b\n", "new_text": "return a * b\n"},
            ),
            ("edit_file", {"path": "app.py", "old_text": '"hi "', "new_text": '"hello "'}),
        ),
        Reply(text="All three."),
    )
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    add, mul, greet = sorted(
        await hunk_diagnostics(editor, uri, 3), key=lambda d: d.range.start.line
    )
    assert [d.range.start.line for d in (add, mul, greet)] == [1, 5, 9]
    assert editor.apply_records == []
    assert await editor.review(uri, greet, "Accept edit") == {"status": "applied"}
    assert not fix.task.done()
    # The first edit adds a line above the second: the second's hunk moves down with it.
    assert await editor.review(uri, add, "Accept hunk") == {"status": "applied"}
    [moved] = await editor.wait_for(
        lambda: [d for d in editor.rune_diagnostics(uri) if d.range.start.line == 6],
        "the second edit's hunk one line lower",
    )
    assert not fix.task.done()  # one edit is still open
    assert await editor.review(uri, moved, "Accept hunk") == {"status": "applied"}
    result = await fix.result()

    assert result.outcome == "completed"
    assert result.statuses() == [("edit_file", "applied")] * 3
    assert editor.text("app.py") == (
        APP_PY.replace("return a - b", fixed_add)
        .replace("return a + b\n\n\ndef greet", "return a * b\n\n\ndef greet")
        .replace('"hi "', '"hello "')
    )
    assert len(double.chat_requests) == 2  # the run went on once, after the last decision


async def test_inlay_hints_and_code_lenses_follow_the_pending_hunks(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(three_hunks(), Reply(text="Done."))
    editor = await launch("neovim")
    editor.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    await hunk_diagnostics(editor, uri, 3)
    hints = await inlay_hints(editor, uri)
    assert [(h.position.line, h.label) for h in hints] == [
        (1, "→ return a + b"),
        (5, "→ return a * b"),
        (9, '→ return "hello " + name'),
    ]
    assert hints[0].position.character == len("    return a - b")
    lenses = await code_lenses(editor, uri)
    assert [(lens.range.start.line, lens.command.title) for lens in lenses if lens.command] == [
        (1, "Accept"),
        (1, "Reject"),
        (5, "Accept"),
        (5, "Reject"),
        (9, "Accept"),
        (9, "Reject"),
    ]
    assert types.WORKSPACE_INLAY_HINT_REFRESH in editor.refreshes
    # A lens runs the per-hunk command.
    reject_second = lenses[3].command
    assert reject_second is not None
    answer = await editor.command(reject_second.command, *(reject_second.arguments or ()))
    assert answer == {"status": "pending"}
    assert [h.position.line for h in await inlay_hints(editor, uri)] == [1, 9]
    await editor.command("rune.acceptEdit", {"editId": lenses[0].command.arguments[0]["editId"]})
    await fix.result()
    assert await inlay_hints(editor, uri) == [] and await code_lenses(editor, uri) == []


async def test_no_inlay_hints_or_code_lenses_for_clients_that_do_not_advertise_them(
    launch: Launch, double: ModelDouble
) -> None:
    double.script(three_hunks(), Reply(text="Done."))
    editor = await launch("emacs")  # eglot: inlay hints yes, code lenses no
    old = await launch("neovim-0.7")  # neither
    for client in (editor, old):
        client.open("app.py")
    uri = editor.uri("app.py")

    fix = editor.start_fix("app.py")
    await hunk_diagnostics(editor, uri, 3)
    assert len(await inlay_hints(editor, uri)) == 3
    assert await code_lenses(editor, uri) == []
    assert types.WORKSPACE_CODE_LENS_REFRESH not in editor.refreshes
    first = editor.rune_diagnostics(uri)[0]
    await editor.command("rune.acceptEdit", {"editId": first.data["editId"]})
    assert (await fix.result()).statuses() == [("edit_file", "applied")]

    double.script(three_hunks(), Reply(text="Done."))
    fix = old.start_fix("app.py")
    await hunk_diagnostics(old, uri, 3)
    assert await inlay_hints(old, uri) == [] and await code_lenses(old, uri) == []
    assert old.refreshes == []
    await old.command("rune.rejectEdit", {"editId": old.rune_diagnostics(uri)[0].data["editId"]})
    assert (await fix.result()).statuses() == [("edit_file", "rejected")]


async def inlay_hints(editor: FakeEditor, uri: str) -> list[types.InlayHint]:
    whole = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=100, character=0)
    )
    params = types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=uri), range=whole)
    return list(await editor.client.text_document_inlay_hint_async(params) or ())


async def code_lenses(editor: FakeEditor, uri: str) -> list[types.CodeLens]:
    params = types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    return list(await editor.client.text_document_code_lens_async(params) or ())
