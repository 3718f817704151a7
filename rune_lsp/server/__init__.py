"""The language server: pygls glue only. Features live in one module each."""

from __future__ import annotations

from rune_lsp.server import code_actions, edits, fix, lifecycle
from rune_lsp.server.app import RuneServer
from rune_lsp.server.documents import LspDocuments
from rune_lsp.server.review import ReviewDesk
from rune_lsp.server.runs import RunManager


def create_server() -> RuneServer:
    server = RuneServer()
    # pygls builds the workspace at `initialize`, so documents look it up on each use.
    documents = LspDocuments(lambda: server.workspace)
    desk = ReviewDesk(server, documents)
    runs = RunManager(server, documents, desk)
    lifecycle.register(server, runs)
    fix.register(server, runs)
    edits.register(server, desk)
    code_actions.register(server, desk)
    return server
