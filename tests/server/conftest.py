"""`launch(...)`: the real server with an in-process editor (tests/server/editor.py)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

import pytest

from tests.loop.fakes import ScriptedModel, ScriptStep
from tests.server.editor import APP_PY, InProcessEditor, Kind, unfreeze

#: Seconds the review waits for the didChange after an accepted edit: the in-process editor
#: sends it on the next loop iteration; only "nothing changed" cases wait this out.
CHANGE_GRACE = "0.2"


class Launch(Protocol):
    async def __call__(
        self,
        *script: ScriptStep,
        kind: Kind = "neovim",
        saves: bool = False,
        approves: bool = False,
        **settings: Any,
    ) -> InProcessEditor: ...


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text(APP_PY, encoding="utf-8")
    return root


@pytest.fixture
async def launch(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Launch]:
    import rune_lsp.providers

    for name in [n for n in os.environ if n.startswith("RUNE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("RUNE_CHANGE_GRACE", CHANGE_GRACE)
    started: list[InProcessEditor] = []

    async def launch(
        *script: ScriptStep,
        kind: Kind = "neovim",
        saves: bool = False,
        approves: bool = False,
        **settings: Any,
    ) -> InProcessEditor:
        model = ScriptedModel.of(*script)
        monkeypatch.setattr(rune_lsp.providers, "make_model", lambda *_, **__: model)
        editor = InProcessEditor(
            workspace, tmp_path / "state", model, kind, settings, saves=saves, approves=approves
        )
        started.append(editor)
        return await editor.initialize()

    yield launch
    for editor in started:
        if not editor.server.protocol._shutdown:
            await editor.shutdown()
    unfreeze()
