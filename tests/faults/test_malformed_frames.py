"""Bytes on the server's stdin that are not well-formed JSON-RPC: the server keeps serving."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.raw_client import RawServer, framed

VALID_CANCEL = {"command": "rune.cancel", "arguments": [{"runId": "nothing-running"}]}


MALFORMED = {
    "garbage line": b"this is not a header\r\n\r\n",
    "content-length not a number": b"Content-Length: many\r\n\r\n",
    "body not json": framed(b"{not json"),
    "body json but not an object": framed(b"[1, 2]"),
    "object without method or id": framed(b'{"jsonrpc": "2.0"}'),
    "unknown method request": framed(b'{"jsonrpc": "2.0", "id": "x1", "method": "rune/nothing"}'),
    "request with params of the wrong type": framed(
        b'{"jsonrpc": "2.0", "id": "x2", "method": "workspace/executeCommand", "params": 7}'
    ),
    "notification with wrong params": framed(
        b'{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"x": 1}}'
    ),
    "binary noise": bytes(range(256)) + b"\r\n\r\n",
}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RawServer]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with RawServer(tmp_path / "state") as running:
        answer = running.initialize(workspace)
        assert "capabilities" in answer["result"]
        yield running


def test_malformed_frames_leave_the_server_serving(server: RawServer) -> None:
    for name, data in MALFORMED.items():
        server.write(data)
        answer = server.request("workspace/executeCommand", VALID_CANCEL)
        assert answer.get("result") == {"cancelled": False}, (name, answer)
    assert server.process.poll() is None
    assert server.stop() == 0


def test_requests_with_bad_params_get_error_responses(server: RawServer) -> None:
    for method, params in [
        ("workspace/executeCommand", {"command": 5}),
        ("workspace/executeCommand", {"command": "rune.nosuch", "arguments": []}),
        ("rune/nothing", {}),
    ]:
        answer = server.request(method, params)
        assert "error" in answer and answer["error"]["message"], (method, params, answer)
        assert answer["error"]["code"] in (-32600, -32601, -32602, -32603), answer
    assert server.request("workspace/executeCommand", VALID_CANCEL)["result"] == {
        "cancelled": False
    }
    assert server.stop() == 0


@pytest.mark.parametrize(
    ("method", "params"),
    [("workspace/executeCommand", 7), ("textDocument/codeAction", {"textDocument": "nope"})],
    ids=["executeCommand params 7", "codeAction textDocument nope"],
)
def test_a_request_with_unstructurable_params_gets_an_error_response(
    server: RawServer, method: str, params: object
) -> None:
    server.send({"jsonrpc": "2.0", "id": "bad", "method": method, "params": params})
    # The server still serves: a valid request after it is answered.
    assert server.request("workspace/executeCommand", VALID_CANCEL)["result"] == {
        "cancelled": False
    }
    answered = [f for f in server.seen if f.get("id") == "bad"]
    assert answered and answered[0]["error"]["code"] == -32602
    message = answered[0]["error"]["message"]
    assert message.startswith(f"Invalid params for {method}: "), message
    assert "$.params" in message, message  # names what did not fit, not only that it failed
    # A client error is the client's to see; the user gets no "Error in server" pop-up.
    assert not [f for f in server.seen if f.get("method") == "window/showMessage"]


#: Requests and notifications a broken client might send: params of the wrong shape, commands
#: with bad arguments, unknown methods, responses to nothing.
BAD_MESSAGES: list[dict[str, object]] = [
    *(
        {"jsonrpc": "2.0", "id": f"r{i}", "method": method, "params": params}
        for i, (method, params) in enumerate(
            [
                ("workspace/executeCommand", 7),
                ("workspace/executeCommand", {"command": 5}),
                ("workspace/executeCommand", {"command": "rune.fixThis", "arguments": [1]}),
                ("workspace/executeCommand", {"command": "rune.acceptEdit", "arguments": [{}]}),
                ("workspace/executeCommand", {"command": "rune.resume", "arguments": ["x"]}),
                ("textDocument/codeAction", {"textDocument": "nope"}),
                ("textDocument/codeAction", []),
                ("rune/nothing", {}),
            ]
        )
    ),
    {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 3}},
    {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": []},
    {"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": 1},
    {"jsonrpc": "2.0", "id": "nobody-asked", "result": 1},
    {"jsonrpc": "2.0", "id": "nobody-asked-either"},
    {"id": 9, "method": "initialize"},
]


def test_each_bad_message_costs_one_log_line_and_no_traceback(server: RawServer) -> None:
    server.request("workspace/executeCommand", VALID_CANCEL)  # the start's own lines are out
    before = len(server.stderr)
    for message in BAD_MESSAGES:
        server.send(message)
    for data in MALFORMED.values():
        server.write(data)
    server.request("workspace/executeCommand", VALID_CANCEL)
    time.sleep(0.5)  # what was logged before that answer reaches the stderr reader thread

    logged = server.stderr[before:].decode("utf-8", "replace")
    assert "Traceback" not in logged, logged
    lines = [line for line in logged.splitlines() if line.strip()]
    assert len(lines) <= len(BAD_MESSAGES) + len(MALFORMED), logged
    assert server.stop() == 0
