"""The editor with no provider set and no Ollama: offered the local model, or switched to it
when it is already provisioned (and told so)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from lsprotocol import types

from rune_lsp.providers import resolve
from rune_lsp.server import create_server
from rune_lsp.server.app import RuneServer
from tests.localmodel.fakes import crash, fake_binary, fake_model, pids_in, record_starts

from .capture import Capture


@pytest.fixture(autouse=True)
def _no_ollama(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    async def unreachable(settings: object) -> bool:
        return False

    monkeypatch.setattr(resolve, "ollama_reachable", unreachable)
    monkeypatch.setenv("RUNE_CACHE_DIR", str(tmp_path / "cache"))
    for key in ("RUNE_PROVIDER", "RUNE_BASE_URL"):
        monkeypatch.delenv(key, raising=False)


def _receive(server: RuneServer, message: dict[str, object]) -> None:
    server.protocol.handle_message(server.protocol.structure_message(message))


async def _start(options: dict[str, object]) -> tuple[RuneServer, Capture]:
    server = create_server()
    capture = Capture()
    server.protocol.set_writer(capture)
    params = {"capabilities": {}, "initializationOptions": {"rune": options}}
    _receive(server, {"jsonrpc": "2.0", "id": 1, "method": types.INITIALIZE, "params": params})
    _receive(server, {"jsonrpc": "2.0", "method": types.INITIALIZED, "params": {}})
    for _ in range(50):
        await asyncio.sleep(0.01)
    return server, capture


async def test_the_editor_offers_to_set_up_the_local_model(tmp_path: Path) -> None:
    server, capture = await _start({"stateDir": str(tmp_path / "state")})
    [offer] = [m for m in capture.messages if m.get("method") == types.WINDOW_SHOW_MESSAGE_REQUEST]
    params = offer["params"]
    assert isinstance(params, dict)
    assert "Ollama is not running at http://127.0.0.1:11434" in params["message"]
    assert (
        "`Set up local model` downloads Qwen2.5-Coder-1.5B-Instruct (1.1 GB)" in params["message"]
    )
    assert [a["title"] for a in params["actions"]] == ["Set up local model", "Not now"]
    assert server.settings.provider == "ollama"  # nothing changes before the user says so


async def test_a_provisioned_local_model_is_used_and_the_user_told(tmp_path: Path) -> None:
    fake_model(tmp_path / "cache", "qwen-1.5b")
    binary = fake_binary(tmp_path / "bin")
    server, capture = await _start(
        {"stateDir": str(tmp_path / "state"), "localServerPath": str(binary)}
    )
    assert server.settings.provider == "local"
    shown = [str(p) for p in capture.shown()]
    assert any("using rune's local model instead" in text for text in shown)
    assert not [m for m in capture.messages if m.get("method") == types.WINDOW_SHOW_MESSAGE_REQUEST]


async def test_a_provider_the_user_set_gets_no_offer(tmp_path: Path) -> None:
    server, capture = await _start({"stateDir": str(tmp_path / "state"), "provider": "ollama"})
    assert not [m for m in capture.messages if m.get("method") == types.WINDOW_SHOW_MESSAGE_REQUEST]
    assert server.settings.provider == "ollama"


async def test_rune_setup_local_starts_it_and_makes_it_the_default(tmp_path: Path) -> None:
    fake_model(tmp_path / "cache", "qwen-1.5b")
    binary = fake_binary(tmp_path / "bin")
    server, capture = await _start(
        {"stateDir": str(tmp_path / "state"), "localServerPath": str(binary), "provider": None}
    )
    request = {"command": "rune.setupLocal", "arguments": []}
    answer = await _ask(server, capture, 7, types.WORKSPACE_EXECUTE_COMMAND, request)
    assert answer == {"ready": True, "error": None}
    assert server.settings.provider == "local"
    assert any("the local model qwen-1.5b is ready" in str(p) for p in capture.shown())
    state = tmp_path / "state" / "local-model"
    assert len(list(state.glob("*.json"))) == 1

    await _ask(server, capture, 8, types.SHUTDOWN, None)  # the last user: it stops the server
    assert not list(state.glob("*.json"))


async def test_setup_local_starts_a_dead_server_anew_and_says_ready_only_when_it_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_model(tmp_path / "cache", "qwen-1.5b")
    starts = record_starts(monkeypatch, tmp_path / "starts")
    binary = fake_binary(tmp_path / "bin")
    server, capture = await _start(
        {"stateDir": str(tmp_path / "state"), "localServerPath": str(binary), "provider": None}
    )
    request = {"command": "rune.setupLocal", "arguments": []}
    assert await _ask(server, capture, 7, types.WORKSPACE_EXECUTE_COMMAND, request) == {
        "ready": True,
        "error": None,
    }
    await crash(pids_in(starts)[0])

    answer = await _ask(server, capture, 8, types.WORKSPACE_EXECUTE_COMMAND, request)
    assert answer == {"ready": True, "error": None}
    [_, second] = pids_in(starts)  # started anew
    [record] = (tmp_path / "state" / "local-model").glob("*.json")
    assert json.loads(record.read_text())["pid"] == second
    port = json.loads(record.read_text())["port"]
    health = await asyncio.to_thread(httpx.get, f"http://127.0.0.1:{port}/health", timeout=5)
    assert health.status_code == 200

    await crash(second)
    monkeypatch.setenv("FAKE_LLAMA_MODE", "exit")  # it cannot come back
    answer = await _ask(server, capture, 9, types.WORKSPACE_EXECUTE_COMMAND, request)
    assert isinstance(answer, dict) and answer["ready"] is False
    assert "llama-server exited (exit status 1) while starting" in answer["error"]
    await _ask(server, capture, 10, types.SHUTDOWN, None)


async def _ask(
    server: RuneServer, capture: Capture, id: int, method: str, params: object
) -> object:
    _receive(server, {"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    for _ in range(1200):  # a busy machine starts a fake server slowly: a wide bound
        await asyncio.sleep(0.05)
        answer = next((m for m in capture.messages if m.get("id") == id and "result" in m), None)
        if answer is not None:
            return answer["result"]
    raise AssertionError(f"no answer to {method}")


def test_sigterm_to_the_server_gives_back_its_lease(tmp_path: Path) -> None:
    """An editor that stops its server with SIGTERM leaves no model server running."""
    fake_model(tmp_path / "cache", "qwen-1.5b")
    binary = fake_binary(tmp_path / "bin")
    state = tmp_path / "state"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNE_", "FAKE_"))}
    env |= {"RUNE_CACHE_DIR": str(tmp_path / "cache"), "RUNE_STATE_DIR": str(state)}
    server = subprocess.Popen(
        [sys.executable, "-m", "rune_lsp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert server.stdin is not None
    options = {"provider": "local", "localServerPath": str(binary)}
    for message in (
        {
            "id": 1,
            "method": "initialize",
            "params": {"capabilities": {}, "initializationOptions": options},
        },
        {"method": "initialized", "params": {}},
        {"id": 2, "method": "workspace/executeCommand", "params": {"command": "rune.setupLocal"}},
    ):
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    server.stdin.flush()
    try:
        records: list[Path] = []
        for _ in range(400):
            records = list((state / "local-model").glob("*.json"))
            if records:
                break
            time.sleep(0.05)
        assert records, "the model server never started"
        model_server = json.loads(records[0].read_text())["pid"]
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
    assert not list((state / "local-model").glob("*.json"))
    with pytest.raises(ProcessLookupError):
        os.kill(model_server, 0)


async def test_cancelling_the_setup_progress_stops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_model(tmp_path / "cache", "qwen-1.5b")
    binary = fake_binary(tmp_path / "bin")
    starts = tmp_path / "starts"
    monkeypatch.setenv("FAKE_LLAMA_MODE", "hang")  # the server never becomes healthy
    monkeypatch.setenv("FAKE_LLAMA_STARTS", str(starts))
    server = create_server()
    capture = Capture()
    server.protocol.set_writer(capture)
    options = {"stateDir": str(tmp_path / "state"), "localServerPath": str(binary)}
    params = {
        "capabilities": {"window": {"workDoneProgress": True}},
        "initializationOptions": {"rune": options},
    }
    _receive(server, {"jsonrpc": "2.0", "id": 1, "method": types.INITIALIZE, "params": params})
    request = {"command": "rune.setupLocal", "arguments": []}
    setup = asyncio.ensure_future(
        _ask(server, capture, 9, types.WORKSPACE_EXECUTE_COMMAND, request)
    )
    create = None
    for _ in range(200):  # the server asks for a progress token: grant it
        await asyncio.sleep(0.05)
        create = next(
            (
                m
                for m in capture.messages
                if m.get("method") == types.WINDOW_WORK_DONE_PROGRESS_CREATE
            ),
            None,
        )
        if create is not None:
            break
    assert create is not None
    _receive(server, {"jsonrpc": "2.0", "id": create["id"], "result": None})
    for _ in range(200):
        await asyncio.sleep(0.05)
        if starts.exists():
            break
    token = create["params"]["token"]  # type: ignore[index]
    _receive(
        server,
        {
            "jsonrpc": "2.0",
            "method": types.WINDOW_WORK_DONE_PROGRESS_CANCEL,
            "params": {"token": token},
        },
    )
    answer = await setup
    assert answer == {"ready": False, "error": "setting up the local model was cancelled"}
    pid = int(starts.read_text().split()[0])
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.05)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
