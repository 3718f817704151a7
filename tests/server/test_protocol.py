"""The protocol additions: late answers are dropped, abandoned requests are withdrawn."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import Future

import pytest
from lsprotocol import types

from rune_lsp.server.app import RuneServer


class Capture:
    """A pygls writer that keeps each JSON-RPC message it is given."""

    def __init__(self) -> None:
        self.messages: list[dict[str, object]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))


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
