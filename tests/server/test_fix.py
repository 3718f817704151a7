"""`rune.fixThis` in process: the task it composes, the result it returns, what it refuses."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from rune_lsp.interface import FIX_THIS
from rune_lsp.store.receipts import ReceiptStore
from tests.loop.fakes import answer
from tests.server.conftest import Launch
from tests.server.editor import WAIT, until


async def test_the_result_is_the_run_result_on_the_wire(launch: Launch) -> None:
    # The code-first turn asks once more for a block (docs/troubleshooting.md); the second
    # answer without one stands.
    editor = await launch(answer("Nothing to fix."), answer("Nothing to fix."))
    editor.open()
    editor.type("return a - b", "return a - b  # unsaved")

    result = await editor.fix(
        range={"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 5}},
        instruction="check the sign",
    )[1]

    assert set(result) == {
        "runId",
        "outcome",
        "answer",
        "error",
        "iterationsUsed",
        "iterationBudget",
        "edits",
        "toolCalls",
        "verified",
        "candidates",
        "receipt",
    }
    assert result["outcome"] == "completed" and result["answer"] == "Nothing to fix."
    assert (result["iterationsUsed"], result["iterationBudget"]) == (2, 8)
    store = ReceiptStore(editor.state_dir)
    assert result["receipt"] == str(store.receipt_path(result["runId"]))
    assert store.load(result["runId"]) is not None
    task = editor.model.calls[0].messages[1].content
    assert "check the sign" in task and "app.py" in task
    assert "# unsaved" in task  # the editor's buffer, not the disk


async def test_the_iteration_budget_comes_from_the_settings(launch: Launch) -> None:
    editor = await launch(answer(), maxIterations=3)

    result = await editor.fix()[1]

    assert result["iterationBudget"] == 3


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ({"uri": "untitled:Untitled-1"}, "uri must be a file: URI, got untitled:Untitled-1"),
        ({"uri": "MISSING"}, "cannot read"),
        ({"uri": "DIRECTORY"}, "cannot use"),
        ({"uri": "BINARY"}, "cannot use"),
        ({}, "uri"),
    ],
)
async def test_a_document_rune_cannot_work_on_is_invalid_params(
    launch: Launch, argument: dict[str, str], message: str
) -> None:
    editor = await launch()
    (editor.root / "blob.bin").write_bytes(b"\x00\x01\x02")
    (editor.root / "pkg").mkdir()
    places = {
        "MISSING": editor.uri("missing.py"),
        "DIRECTORY": editor.uri("pkg"),
        "BINARY": editor.uri("blob.bin"),
    }
    if "uri" in argument:
        argument = {"uri": places.get(argument["uri"], argument["uri"])}

    error = await editor.error_of(editor.command(FIX_THIS, argument))

    assert error.code == types.ErrorCodes.InvalidParams
    assert error.args[0].startswith(f"{FIX_THIS}: ") and message.lower() in str(error).lower()
    assert editor.model.calls == []  # no run started


async def test_a_failing_model_is_a_failed_result_not_an_error(launch: Launch) -> None:
    from rune_lsp.loop.ports import ModelError

    editor = await launch(ModelError("the model server is down: start it"))

    result = await editor.fix()[1]

    assert result["outcome"] == "failed"
    assert "the model server is down" in result["error"]
    end = await until(lambda: editor.progress_end(f"rune/{result['runId']}"), "the progress end")
    assert end.startswith("failed · ")


async def test_a_file_the_rules_refuse_is_a_failed_result_and_the_model_is_not_asked(
    launch: Launch,
) -> None:
    editor = await launch(answer("never asked"))
    secret = editor.root.parent / "elsewhere" / ".env"
    secret.parent.mkdir()
    secret.write_text("TOKEN=server-secret\n", encoding="utf-8")

    result = await asyncio.wait_for(editor.command(FIX_THIS, {"uri": secret.as_uri()}), WAIT)

    assert (result["outcome"], result["iterationsUsed"]) == ("failed", 0)
    assert result["error"] and "server-secret" not in str(result)
    assert editor.model.calls == []
    [shown] = [
        m["params"]["message"]
        for m in editor.notifications(types.WINDOW_SHOW_MESSAGE)
        if "refused to fix" in m["params"]["message"]
    ]
    assert str(secret) in shown
