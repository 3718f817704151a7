"""Settings: kept at `initialize`, validated at `initialized`, problems shown once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from rune_lsp.server import create_server, lifecycle
from rune_lsp.server.app import RuneServer
from tests.server.editor import until

from .capture import Capture


def _receive(server: RuneServer, message: dict[str, object]) -> None:
    server.protocol.handle_message(server.protocol.structure_message(message))


async def _settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


async def test_bad_options_are_shown_at_initialized_not_before(tmp_path: Path) -> None:
    server = create_server()
    capture = Capture()
    server.protocol.set_writer(capture)
    # A provider named: with none, a machine without Ollama would add rune's offer of a local
    # model to what is shown (tests/server/test_localmodel.py).
    options = {
        "rune": {
            "maxIterations": -3,
            "model": "tiny",
            "stateDir": str(tmp_path),
            "provider": "ollama",
        }
    }

    _receive(
        server,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": types.INITIALIZE,
            "params": {"capabilities": {}, "initializationOptions": options},
        },
    )
    await _settle()
    assert [m["id"] for m in capture.messages if "result" in m] == [1]
    assert capture.shown() == []  # nothing validated yet: the answer did not wait for it

    _receive(server, {"jsonrpc": "2.0", "method": types.INITIALIZED, "params": {}})
    # Applied before pygls reads the next message, not on a later loop iteration.
    assert server.settings.model == "tiny"
    await _settle()

    [warning] = capture.shown()
    assert isinstance(warning, dict) and "maxIterations" in str(warning["message"])
    assert server.settings.max_iterations == type(server.settings)().max_iterations


def test_settings_are_the_defaults_before_the_client_sends_any() -> None:
    server = create_server()

    assert server.settings.model == type(server.settings)().model
    assert server.settings_problems == ()


async def test_a_settings_pull_the_client_never_answers_is_given_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lifecycle, "CONFIGURATION_WAIT_SECONDS", 0.05)
    server = create_server()
    capture = Capture()
    server.protocol.set_writer(capture)
    capabilities = {"workspace": {"configuration": True}}
    options = {"stateDir": str(tmp_path)}
    _receive(
        server,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": types.INITIALIZE,
            "params": {"capabilities": capabilities, "initializationOptions": options},
        },
    )
    _receive(server, {"jsonrpc": "2.0", "method": types.INITIALIZED, "params": {}})
    # The give-up is an event to wait for: a fixed pause could end before it on a busy machine.
    await until(
        lambda: any(m.get("method") == types.CANCEL_REQUEST for m in capture.messages),
        "the unanswered pull withdrawn",
    )

    [pull] = [m for m in capture.messages if m.get("method") == types.WORKSPACE_CONFIGURATION]
    cancels = [m for m in capture.messages if m.get("method") == types.CANCEL_REQUEST]
    assert [c["params"] for c in cancels] == [{"id": pull["id"]}]  # withdrawn, not left open
    logged = [
        str(m["params"]["message"])  # type: ignore[index]
        for m in capture.messages
        if m.get("method") == types.WINDOW_LOG_MESSAGE
    ]
    assert "workspace/configuration failed: no answer within 0.05 s" in logged
