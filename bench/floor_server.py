"""The floor: a pygls server that does nothing, the least any pygls server costs to start.

It answers `initialize` with pygls' defaults and offers one no-op command, `floor.noop`, so
a request round trip through pygls can be timed too. Nothing from rune_lsp is imported.

Run: python bench/floor_server.py   (JSON-RPC over stdio)
"""

from __future__ import annotations

from typing import Any

from pygls.lsp.server import LanguageServer

server = LanguageServer("floor", "0")


@server.command("floor.noop")
def noop(ls: LanguageServer, *args: Any) -> None:
    return None


if __name__ == "__main__":
    server.start_io()
