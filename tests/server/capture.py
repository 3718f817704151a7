"""A pygls writer for the server tests: what the server sent, as parsed JSON-RPC messages."""

from __future__ import annotations

import json

from lsprotocol import types


class Capture:
    """A pygls writer that keeps each JSON-RPC message it is given."""

    def __init__(self) -> None:
        self.messages: list[dict[str, object]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))

    def shown(self) -> list[object]:
        return [m["params"] for m in self.messages if m.get("method") == types.WINDOW_SHOW_MESSAGE]
