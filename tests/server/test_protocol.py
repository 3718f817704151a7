"""The protocol additions: late answers are dropped, abandoned requests are withdrawn."""

from __future__ import annotations

import asyncio
from concurrent.futures import Future

import pytest
from lsprotocol import types

from rune_lsp.server.app import RuneServer

from .capture import Capture


def server_with_capture() -> tuple[RuneServer, Capture]:
    server = RuneServer()
    capture = Capture()
    server.protocol.set_writer(capture)
    return server, capture


def test_an_answer_to_a_request_the_server_gave_up_on_is_ignored() -> None:
    server, _ = server_with_capture()
    abandoned: Future[object] = Future()
    abandoned.cancel()
    server.protocol._request_futures["late"] = abandoned

    server.protocol._handle_response("late", result={"title": "Run"})  # must not raise

    assert "late" not in server.protocol._request_futures


def test_an_awaited_answer_still_resolves() -> None:
    server, _ = server_with_capture()
    waiting: Future[object] = Future()
    server.protocol._request_futures["id"] = waiting

    server.protocol._handle_response("id", result=None)

    assert waiting.done() and waiting.result() is None


async def test_ask_withdraws_the_request_on_timeout() -> None:
    server, capture = server_with_capture()
    params = types.ShowMessageRequestParams(type=types.MessageType.Info, message="run?")

    with pytest.raises(TimeoutError):
        await server.ask(types.WINDOW_SHOW_MESSAGE_REQUEST, params, wait=0.01)

    request, cancel = capture.messages
    assert request["method"] == types.WINDOW_SHOW_MESSAGE_REQUEST
    assert cancel == {
        "jsonrpc": "2.0",
        "method": "$/cancelRequest",
        "params": {"id": request["id"]},
    }


async def test_ask_withdraws_the_request_when_the_caller_is_cancelled() -> None:
    server, capture = server_with_capture()
    params = types.ApplyWorkspaceEditParams(edit=types.WorkspaceEdit())
    asking = asyncio.ensure_future(server.ask(types.WORKSPACE_APPLY_EDIT, params))
    await asyncio.sleep(0)

    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking

    request, cancel = capture.messages
    assert cancel["method"] == "$/cancelRequest"
    assert cancel["params"] == {"id": request["id"]}


async def _settle() -> None:
    for _ in range(10):  # done callbacks run on later loop iterations
        await asyncio.sleep(0)


def _receive(server: RuneServer, message: dict[str, object]) -> None:
    server.protocol.handle_message(server.protocol.structure_message(message))


async def test_finished_commands_leave_no_futures_behind() -> None:
    server, capture = server_with_capture()

    @server.command("test.echo")
    async def echo(ls: RuneServer, *args: object) -> dict[str, object]:
        await asyncio.sleep(0)
        return {"echo": list(args)}

    @server.command("test.fail")
    def fail(ls: RuneServer, *args: object) -> None:
        raise ValueError("broken on purpose")

    for number in range(20):
        command = "test.fail" if number % 4 == 0 else "test.echo"
        _receive(
            server,
            {
                "jsonrpc": "2.0",
                "id": number,
                "method": types.WORKSPACE_EXECUTE_COMMAND,
                "params": {"command": command, "arguments": [number]},
            },
        )
        await _settle()

    answers = {m["id"]: m for m in capture.messages if "id" in m}
    assert set(answers) == set(range(20))  # every command was answered ...
    assert answers[1]["result"] == {"echo": [1]}
    assert "error" in answers[0]
    assert server.protocol._request_futures == {}  # ... and nothing of it is kept


async def test_finished_async_notifications_leave_no_futures_behind() -> None:
    server, _ = server_with_capture()
    seen: list[str] = []

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration(ls: RuneServer, params: object) -> None:
        seen.append("configuration")

    for _ in range(5):
        _receive(
            server,
            {
                "jsonrpc": "2.0",
                "method": types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                "params": {"settings": {}},
            },
        )
        await _settle()

    assert seen == ["configuration"] * 5
    assert server.protocol._request_futures == {}


async def test_a_running_command_keeps_its_future_until_it_ends() -> None:
    server, capture = server_with_capture()
    release = asyncio.Event()

    @server.command("test.wait")
    async def wait(ls: RuneServer, *args: object) -> str:
        await release.wait()
        return "done"

    _receive(
        server,
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": types.WORKSPACE_EXECUTE_COMMAND,
            "params": {"command": "test.wait", "arguments": []},
        },
    )
    await _settle()
    running = dict(server.protocol._request_futures)
    assert 7 in running and len(running) == 2  # the request and the command's own step

    release.set()
    await _settle()

    assert [m["result"] for m in capture.messages if m.get("id") == 7] == ["done"]
    assert server.protocol._request_futures == {}
