"""A `stateDir` that cannot be written fails the run, naming it (issue 25, item 6): it used
to answer `rune.fixThis` with JSON-RPC -32603 and a traceback, with no run result and no
receipt, once the first review tried to keep its pause there."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from rune_lsp.interface import RESUME
from tests.loop.fakes import answer, edit, turn
from tests.server.conftest import Launch
from tests.server.editor import finished


@pytest.fixture
def unwritable_state(tmp_path: Path) -> Path:
    # A directory under a regular file: unwritable for root too (the tests may run as root,
    # for whom a read-only mode bit changes nothing).
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    return blocker / "state"


async def test_a_fix_this_fails_naming_the_state_dir(
    launch: Launch, unwritable_state: Path
) -> None:
    editor = await launch(
        turn(edit("app.py", "return a - b", "return a + b")),
        answer("Fixed."),
        kind="vscode",
        stateDir=str(unwritable_state),
    )
    editor.open()
    result = await finished(editor.fix()[1])

    assert result["outcome"] == "failed"
    assert f"the state directory {unwritable_state} is not writable" in result["error"]
    assert "stateDir" in result["error"]
    assert result["receipt"] is None
    assert not editor.model.calls  # nothing was asked of the model
    shown = [m["params"]["message"] for m in editor.notifications(types.WINDOW_SHOW_MESSAGE)]
    assert any(str(unwritable_state) in message for message in shown)


async def test_a_resume_fails_the_same_way(launch: Launch, unwritable_state: Path) -> None:
    editor = await launch(kind="vscode", stateDir=str(unwritable_state))

    result = await finished(editor.command(RESUME, {"runId": "0123456789ab"}))

    assert result["outcome"] == "failed"
    assert str(unwritable_state) in result["error"]
