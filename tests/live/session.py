"""The real language server over stdio, driven by the e2e fake editor, for whole runs.

`editor_session` starts `python -m rune_lsp`, initializes it as a VS Code-like (`vscode`,
review mode A) or Neovim-like (`neovim`, mode B) editor, and always shuts it down (or kills
it) afterwards. `AutoReview` plays the user of mode B: every pending-edit diagnostic that
appears is decided at once through its code action, as a person clicking it would.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import pytest_lsp
from lsprotocol import types

from tests.e2e.client import EditorClient
from tests.e2e.editor import FakeEditor, Kind

CAPABILITIES: dict[Kind, str] = {"vscode": "visual-studio-code", "neovim": "neovim"}
#: The server waits this long (s) for the didChange after an accepted edit; the fake editor
#: sends it within milliseconds.
CHANGE_GRACE = "1"
ReviewTitle = Literal["Accept edit", "Reject edit"]
#: How long one decision may wait when nothing new appears (a whole run's bound).
REVIEW_IDLE = 3600.0


def server_env(state_dir: Path) -> dict[str, str]:
    """The environment without the developer's RUNE_* settings, plus this run's state dir."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNE_")}
    env["RUNE_STATE_DIR"] = str(state_dir)
    env["RUNE_CHANGE_GRACE"] = CHANGE_GRACE
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


@asynccontextmanager
async def editor_session(
    kind: Kind, workspace: Path, state_dir: Path, settings: dict[str, Any]
) -> AsyncIterator[FakeEditor]:
    config = pytest_lsp.ClientServerConfig(
        server_command=[sys.executable, "-m", "rune_lsp"],
        server_env=server_env(state_dir),
        client_factory=EditorClient,
    )
    client = await config.start()
    assert isinstance(client, EditorClient)
    editor = FakeEditor(client, workspace, kind)
    try:
        await editor.initialize(pytest_lsp.client_capabilities(CAPABILITIES[kind]), settings)
        yield editor
    finally:
        await editor.close()
    assert client.stdout_violations == [], "the server wrote non-JSON-RPC to its stdout"


@dataclass
class AutoReview:
    """Mode B's user: decide each pending edit with `title` as soon as it is published."""

    editor: FakeEditor
    title: ReviewTitle
    decided: list[str] = field(default_factory=list)
    answers: list[Any] = field(default_factory=list)
    _task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> AutoReview:
        self._task = asyncio.create_task(self._decide_forever())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _decide_forever(self) -> None:
        while True:
            found = await self.editor.wait_for(
                self._next_pending, "a pending edit", within=REVIEW_IDLE
            )
            assert found is not None  # wait_for returns only a truthy value
            uri, diagnostic = found
            self.decided.append(_edit_id(diagnostic) or "")
            try:
                self.answers.append(await self.editor.review(uri, diagnostic, self.title))
            except Exception as exc:
                # The run may have moved on (stale, superseded, ended): the server refuses the
                # decision, which is the server's business, not a failure of the user.
                self.answers.append(exc)

    def _next_pending(self) -> tuple[str, types.Diagnostic] | None:
        for uri, diagnostics in self.editor.client.diagnostics.items():
            for diagnostic in diagnostics:
                edit_id = _edit_id(diagnostic)
                if diagnostic.source == "rune" and edit_id and edit_id not in self.decided:
                    return uri, diagnostic
        return None


def _edit_id(diagnostic: types.Diagnostic) -> str | None:
    data = diagnostic.data
    if isinstance(data, dict) and isinstance(data.get("editId"), str):
        return str(data["editId"])
    return str(diagnostic.code) if diagnostic.code is not None else None
