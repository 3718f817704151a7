"""One real server and fake editor on an event loop of their own, driven from sync code.

Hypothesis' state machines call their rules synchronously; the server and the editor live on
an asyncio loop in a dedicated thread and each rule runs its coroutine there with a bound.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Coroutine
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import pytest_lsp

from tests.doubles.model_double import ModelDouble, Responder
from tests.e2e.client import EditorClient
from tests.e2e.conftest import base_settings, server_env
from tests.e2e.editor import ApplyPolicy, FakeEditor

T = TypeVar("T")
BOUND = 30.0  # seconds any one step may take before the test fails


class ThreadedEditor:
    """A neovim-like editor (review mode B) whose accepted edits are saved to disk at once."""

    def __init__(self, workspace: Path, responder: Responder) -> None:
        self.workspace = workspace
        self.double = ModelDouble(responder=responder)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="editor-loop")
        self._editor: FakeEditor | None = None

    @property
    def editor(self) -> FakeEditor:
        assert self._editor is not None, "not started"
        return self._editor

    def run(self, coroutine: Coroutine[Any, Any, T], bound: float = BOUND) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(bound)

    def __enter__(self) -> ThreadedEditor:
        self.double.start()
        self._thread.start()
        self._editor = self.run(self._start())
        return self

    async def _start(self) -> FakeEditor:
        config = pytest_lsp.ClientServerConfig(
            server_command=[sys.executable, "-m", "rune_lsp"],
            server_env=server_env(),
            client_factory=EditorClient,
        )
        client = await config.start()
        assert isinstance(client, EditorClient)
        editor = FakeEditor(client, self.workspace, "neovim")
        editor.default_apply = ApplyPolicy(save=True)
        await editor.initialize(
            pytest_lsp.client_capabilities("neovim"), base_settings(self.double)
        )
        return editor

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self._editor is not None:
                self.run(self._editor.close())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=10)
            self.loop.close()
            self.double.stop()
        if exc_type is None and self._editor is not None:
            assert self._editor.client.stdout_violations == []
            assert self._editor.exit_problem is None, self._editor.exit_problem
