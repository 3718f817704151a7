"""Fixtures for end-to-end tests: the real server over stdio, a fake editor, a real model double.

Each `launch(...)` starts `python -m rune_lsp` with its own state dir (`editor.state_dir`),
initialized by a fake VS Code (`vscode`, review mode A) or Neovim (`neovim`, mode B) pointed at
a `ModelDouble` on 127.0.0.1. Every server is shut down (or killed) when the test ends, and a
test fails if the server ever wrote anything but JSON-RPC to its stdout or did not shut down
cleanly (a test that kills it on purpose says so with `editor.crash()`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest
import pytest_lsp

from tests.doubles.model_double import ModelDouble
from tests.e2e.client import EditorClient
from tests.e2e.editor import FakeEditor, Kind
from tests.e2e.spares import SPARES

CAPABILITIES = {
    "vscode": "visual-studio-code",
    "neovim": "neovim",  # the latest pytest-lsp knows: inlay hints and code lenses
    "neovim-0.7": "neovim@v0.7.0",  # neither inlay hints nor code lenses
    "emacs": "emacs",  # eglot: inlay hints, no code lenses
}

#: The document most scenarios work on: three small functions, so one edit can span 2+ hunks.
APP_PY = """\
def add(a, b):
    return a - b


def mul(a, b):
    return a + b


def greet(name):
    return "hi " + name
"""

#: Seconds the server waits for the didChange after an accepted edit (default 2 s): the fake
#: editor sends it within milliseconds; only "nothing changed" cases wait this out.
CHANGE_GRACE = "1"


class Launch(Protocol):
    def __call__(
        self,
        kind: Kind = "vscode",
        *,
        settings: dict[str, Any] | None = None,
        configuration: dict[str, Any] | None = None,
        state_dir: Path | None = None,
        experimental: dict[str, Any] | None = None,
        roots: bool = True,
        env: dict[str, str] | None = None,
    ) -> Awaitable[FakeEditor]: ...


@pytest.fixture
def double() -> Iterator[ModelDouble]:
    with ModelDouble() as running:
        yield running


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text(APP_PY, encoding="utf-8")
    return root


@pytest.fixture(scope="session", autouse=True)
def _spare_servers() -> Iterator[None]:
    yield
    SPARES.close()


def server_env() -> dict[str, str]:
    """The test's environment without any RUNE_* of the developer's (each server then gets its
    own RUNE_STATE_DIR from the spare pool)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNE_")}
    env["RUNE_CHANGE_GRACE"] = CHANGE_GRACE
    return env


def base_settings(double: ModelDouble) -> dict[str, Any]:
    return {
        "provider": "ollama",
        "baseUrl": double.ollama_url,
        "model": "qwen3:14b",
        "requestTimeout": 10,
    }


@pytest.fixture
async def launch(double: ModelDouble, workspace: Path) -> AsyncIterator[Launch]:
    editors: list[FakeEditor] = []

    async def start(
        kind: Kind = "vscode",
        *,
        settings: dict[str, Any] | None = None,
        configuration: dict[str, Any] | None = None,
        state_dir: Path | None = None,
        experimental: dict[str, Any] | None = None,
        roots: bool = True,
        env: dict[str, str] | None = None,
    ) -> FakeEditor:
        extra = env or {}
        env = {**server_env(), **extra}
        if state_dir is not None:  # e.g. a second server continuing the first one's runs
            env["RUNE_STATE_DIR"] = str(state_dir)
        config = pytest_lsp.ClientServerConfig(
            server_command=[sys.executable, "-m", "rune_lsp"],
            server_env=env,
            client_factory=EditorClient,
        )
        client = await config.start()
        assert isinstance(client, EditorClient)
        editor = FakeEditor(client, workspace, kind)
        editors.append(editor)
        options = {**base_settings(double), **(settings or {})}
        capabilities = pytest_lsp.client_capabilities(CAPABILITIES[kind])
        if experimental is not None:
            capabilities.experimental = experimental
        await editor.initialize(capabilities, options, configuration, roots=roots)
        return editor

    yield start
    for editor in editors:
        await editor.close()
    for editor in editors:
        assert editor.client.stdout_violations == [], "the server wrote non-JSON-RPC to stdout"
        assert editor.exit_problem is None, editor.exit_problem
