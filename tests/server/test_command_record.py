"""A command's record is the user's story too (issue 27 point 3): the run result and the
receipt hold the whole command and the output the model read, not a 200-character head."""

from __future__ import annotations

from rune_lsp.store.markdown import render_receipt
from rune_lsp.store.receipts import ReceiptStore
from tests.loop.fakes import answer, call, turn
from tests.server.conftest import Launch
from tests.server.editor import finished, told

# 600 characters of output, the last line the one that says what happened.
COMMAND = "python3 -c \"print('x' * 590); print('the end')\""


async def test_the_run_result_and_the_receipt_hold_the_commands_whole_output(
    launch: Launch,
) -> None:
    editor = await launch(
        turn(call("read_file", {"path": "app.py"})),
        turn(call("run_command", {"command": COMMAND})),
        answer("Ran it."),
        approves=True,
    )

    result = await finished(editor.fix()[1])

    read, ran = result["toolCalls"]
    assert set(read) == {"name", "status"}  # other tools' entries are as before
    assert ran["command"] == COMMAND
    assert "x" * 590 in ran["output"] and "the end" in ran["output"]
    assert ran["output"] in told(editor)  # the same text the model got
    receipt = ReceiptStore(editor.state_dir).load(result["runId"])
    assert receipt is not None
    [stored] = [c for c in receipt.tool_calls if c.name == "run_command"]
    assert (stored.command, stored.output) == (COMMAND, ran["output"])
    assert receipt.result.tool_calls[1].output == ran["output"]
    assert "the end" in render_receipt(receipt)
