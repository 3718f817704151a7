"""Verification runs on the disk, so the server asks a client that can save to do so first.

LSP has no request for "save this document"; a client that advertises the experimental
capability `runeSaveDocuments` (the VS Code extension does) answers `rune/saveDocuments`.
Without it, an accepted edit still unsaved in the editor makes `verified` null, never true.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tests.doubles.model_double import ModelDouble, Reply
from tests.e2e.conftest import Launch
from tests.e2e.editor import FakeEditor
from tests.e2e.scenario import disk, edit

CHECK = f'{sys.executable} -c "import app, sys; sys.exit(0 if app.add(2, 3) == 5 else 1)"'


def answer_saves(editor: FakeEditor, asked: list[Any]) -> None:
    @editor.client.feature("rune/saveDocuments")
    def save_documents(ls: object, params: Any) -> dict[str, list[str]]:
        uris = list(params.uris if hasattr(params, "uris") else params["uris"])
        asked.append(uris)
        for uri in uris:
            editor.save(Path(uri.removeprefix("file://")).name)
        return {"saved": uris}


async def test_a_client_that_saves_gets_a_verified_fix(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="Fixed."))
    editor = await launch(
        "vscode", settings={"checkCommand": CHECK}, experimental={"runeSaveDocuments": True}
    )
    asked: list[Any] = []
    answer_saves(editor, asked)
    editor.open("app.py")

    result = await editor.fix("app.py")

    assert result.statuses() == [("edit_file", "applied")]
    assert asked == [[editor.uri("app.py")]]
    assert "return a + b" in (disk(workspace / "app.py") or "")
    assert result.verified is True


async def test_an_unsaved_accepted_edit_is_not_verified(
    launch: Launch, double: ModelDouble, workspace: Path
) -> None:
    double.script(edit("app.py", "return a - b", "return a + b"), Reply(text="Fixed."))
    editor = await launch("vscode", settings={"checkCommand": CHECK})
    editor.open("app.py")

    result = await editor.fix("app.py")

    assert result.statuses() == [("edit_file", "applied")]
    assert "return a - b" in (disk(workspace / "app.py") or "")  # only the buffer changed
    assert result.verified is None
    assert "unsaved" in result.answer
