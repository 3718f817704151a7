"""Nothing the editor shows carries the configured API key, whatever the model quotes: the
applyEdit label, the hunk diagnostics, inlay hints, the run result (issue 25, item 2).

What an edit writes is left as it is; the tools refuse a change that would add the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rune_lsp.interface import ACCEPT_EDIT
from tests.loop.fakes import answer, call, edit, turn
from tests.server.conftest import Launch
from tests.server.editor import Kind, finished, until

KEY = "planted-apikey-4f7c2a9d1e"
KEY_LINE = f"KEY = {KEY!r}\n"
SOURCE = KEY_LINE + "\n\ndef add(a, b):\n    return a - b\n"


@pytest.mark.parametrize("kind", ["vscode", "neovim"])
async def test_the_key_the_model_quotes_never_reaches_the_editor(
    launch: Launch, workspace: Path, kind: Kind
) -> None:
    (workspace / "app.py").write_text(SOURCE, encoding="utf-8")
    fix = turn(
        edit("app.py", KEY_LINE, "KEY = os.environ['APP_KEY']\n"),
        text=f"The key {KEY} should not be in the code.",
    )
    editor = await launch(fix, answer(f"Moved {KEY} out of app.py."), kind=kind, apiKey=KEY)
    uri = editor.open()
    _, running = editor.fix()
    if kind == "neovim":
        [diagnostic] = await until(editor.rune_diagnostics, "the pending edit's diagnostic")
        assert "***" in diagnostic.message  # the removed line, as shown
        assert await editor.command(ACCEPT_EDIT, diagnostic.data) == {"status": "applied"}
    result = await finished(running)

    assert result["answer"].startswith("Moved *** out of app.py.")
    assert result["edits"][0]["status"] == "applied"
    assert KEY not in json.dumps(editor.sent)
    assert editor.buffers[uri].text.startswith("KEY = os.environ['APP_KEY']\n")


async def test_an_edit_that_would_add_the_key_is_refused(launch: Launch, workspace: Path) -> None:
    editor = await launch(
        turn(edit("app.py", "return a - b", f"return a + b  # {KEY}")),
        turn(call("write_file", {"path": f"{KEY}.txt", "content": "x\n"})),
        answer("Done."),
        kind="vscode",
        apiKey=KEY,
    )
    editor.open()
    result = await finished(editor.fix()[1])

    assert result["edits"] == []
    assert [c["status"] for c in result["toolCalls"]] == ["denied", "denied"]
    assert not editor.requests("workspace/applyEdit")
    told = "\n".join(m.content for m in editor.model.calls[-1].messages)
    assert told.count("Refused: this change would write a credential into") == 2
    assert KEY not in json.dumps(editor.sent)
    assert not (workspace / f"{KEY}.txt").exists()
