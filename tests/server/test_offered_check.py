"""In the editor: the check rune offers is asked with `window/showMessageRequest` Run / Deny,
like a `run_command`, and runs only on Run (issue 26, point 6); a check that cannot run is
shown to the user before any model turn (point 5)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from tests.doubles.venv_python import venv_python
from tests.loop.fakes import answer
from tests.server.conftest import Launch
from tests.server.editor import finished

TEST = "from app import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
PYTEST_WAIT = 120.0
OFFERED = ".venv/bin/python -m pytest -q tests/test_app.py"


def _with_a_test(workspace: Path) -> None:
    (workspace / "tests").mkdir()
    (workspace / "tests" / "test_app.py").write_text(TEST, encoding="utf-8")
    (workspace / "pytest.ini").write_text("[pytest]\npythonpath = .\n", encoding="utf-8")
    venv_python(workspace)


async def test_run_runs_the_offered_check(launch: Launch, workspace: Path) -> None:
    _with_a_test(workspace)
    editor = await launch(answer("I cannot tell."))
    editor.message_answer = "Run"

    # pytest starts in seconds on a busy machine, more than the editor's usual wait.
    result = await asyncio.wait_for(editor.fix("tests/test_app.py")[1], PYTEST_WAIT)

    [asked] = editor.requests(types.WINDOW_SHOW_MESSAGE_REQUEST)
    message = asked["params"]["message"]
    assert message.startswith("rune offers a check for this run (tests/test_app.py is a test file")
    assert f": {OFFERED}\n(in {workspace}" in message
    assert [a["title"] for a in asked["params"]["actions"]] == ["Run", "Allow for this run", "Deny"]
    task = editor.model.calls[0].messages[1].content
    # It ran and failed: the run moved to the module the test points to (its report is kept
    # from the first request, to judge the candidates).
    assert task.startswith("Task: The test tests/test_app.py fails. Fix the bug.\nFile: app.py\n")
    assert result["outcome"] == "completed"


async def test_deny_runs_the_fix_without_it(launch: Launch, workspace: Path) -> None:
    _with_a_test(workspace)
    editor = await launch(answer("I cannot tell."))
    editor.message_answer = "Deny"

    await finished(editor.fix("tests/test_app.py")[1])

    assert len(editor.requests(types.WINDOW_SHOW_MESSAGE_REQUEST)) == 1
    assert "The check" not in editor.model.calls[0].messages[1].content


async def test_a_check_that_cannot_run_is_shown_and_asks_no_model(launch: Launch) -> None:
    editor = await launch(answer("never asked"), checkCommand="no-such-command-rune-26 -q")

    result = await finished(editor.fix()[1])

    assert editor.model.calls == []
    assert result["outcome"] == "failed"
    assert "the check `no-such-command-rune-26 -q` cannot run" in result["error"]
    shown = [
        m["params"]
        for m in editor.notifications(types.WINDOW_SHOW_MESSAGE)
        if "cannot run" in m["params"]["message"]
    ]
    assert [s["type"] for s in shown] == [types.MessageType.Error.value]
    assert "its command was not found (exit 127)" in shown[0]["message"]
