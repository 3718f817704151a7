"""The record is the user's story (issue 27 point 5): the user's reasons and each hunk's fate
are in the run result and the receipt, and a partial edit's receipt diff is what landed."""

from __future__ import annotations

from rune_lsp.interface import ACCEPT_HUNK, REJECT_EDIT, REJECT_HUNK
from rune_lsp.store.markdown import render_receipt
from rune_lsp.store.receipts import ReceiptStore
from tests.loop.fakes import answer, edit, turn
from tests.server.conftest import Launch
from tests.server.editor import APP_PY, Apply, finished, until

# One edit, two hunks: line 2 and line 6.
BOTH = turn(
    edit(
        "app.py",
        "    return a - b\n\n\ndef mul(a, b):\n    return a + b",
        "    return a + b\n\n\ndef mul(a, b):\n    return a * b",
    ),
    text="Fixing both.",
)


async def test_hunks_decided_one_by_one_are_recorded_with_the_users_reason(
    launch: Launch,
) -> None:
    editor = await launch(BOTH, answer("Kept the sum."))
    editor.open()
    _, answer_ = editor.fix()
    first, second = await until(
        lambda: (d := editor.rune_diagnostics()) and len(d) == 2 and d, "both hunks"
    )
    assert await editor.command(ACCEPT_HUNK, first.data) == {"status": "pending"}
    await editor.command(REJECT_HUNK, {**second.data, "reason": "mul is right as it is"})

    result = await finished(answer_)

    [record] = result["edits"]
    assert record["status"] == "partial"
    assert record["hunks"] == [
        {"hunkId": 1, "status": "applied"},
        {"hunkId": 2, "status": "rejected", "reason": "mul is right as it is"},
    ]
    assert record["reason"] == "mul is right as it is"  # the one reason given
    receipt = ReceiptStore(editor.state_dir).load(result["runId"])
    assert receipt is not None
    [stored] = receipt.edits
    assert stored.hunks == receipt.result.edits[0].hunks
    # What landed, not the proposal: the rejected hunk is not in the diff.
    assert "+    return a + b" in stored.diff and "return a * b" not in stored.diff
    assert "mul is right as it is" in render_receipt(receipt)


async def test_a_whole_edit_rejected_with_a_reason_records_it(launch: Launch) -> None:
    editor = await launch(BOTH, answer("Understood."))
    editor.open()
    _, answer_ = editor.fix()
    first, _ = await until(
        lambda: (d := editor.rune_diagnostics()) and len(d) == 2 and d, "both hunks"
    )
    await editor.command(REJECT_EDIT, {"editId": first.data["editId"], "reason": "not now"})

    result = await finished(answer_)

    [record] = result["edits"]
    assert (record["status"], record["reason"]) == ("rejected", "not now")
    assert "hunks" not in record  # one word says it for the whole edit


async def test_a_reason_the_vscode_inline_review_gives_is_recorded(launch: Launch) -> None:
    editor = await launch(BOTH, answer("Understood."), kind="vscode")
    editor.open()
    editor.applies.append(
        Apply(
            lands=lambda text: text.replace("a - b", "a + b", 1),
            reason="hunk 2: mul is right as it is",
        )
    )

    result = await finished(editor.fix()[1])

    [record] = result["edits"]
    assert record["status"] == "partial"
    assert record["reason"] == "hunk 2: mul is right as it is"
    receipt = ReceiptStore(editor.state_dir).load(result["runId"])
    assert receipt is not None
    assert "return a * b" not in receipt.edits[0].diff
    assert editor.buffers[editor.uri()].text == APP_PY.replace("a - b", "a + b", 1)
