"""The language server: pygls glue only. Features live in one module each."""

from __future__ import annotations

import logging
import os

from rune_lsp.server import code_actions, config, edits, fix, lifecycle
from rune_lsp.server.app import RuneServer
from rune_lsp.server.documents import LspDocuments
from rune_lsp.server.review import CHANGE_GRACE_SECONDS, ReviewDesk
from rune_lsp.server.runs import RunManager


def create_server() -> RuneServer:
    _quiet_pygls()
    server = RuneServer()
    # pygls builds the workspace at `initialize`, so documents look it up on each use.
    documents = LspDocuments(lambda: server.workspace)
    grace = config.change_grace(os.environ, CHANGE_GRACE_SECONDS)
    desk = ReviewDesk(server, documents, change_grace=grace)
    runs = RunManager(server, documents, desk)
    lifecycle.register(server, runs)
    fix.register(server, runs)
    edits.register(server, desk)
    code_actions.register(server, desk)
    return server


def _quiet_pygls() -> None:
    """pygls logs every message it sends at INFO; that is debugging detail, not a server log."""
    if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
        logging.getLogger("pygls").setLevel(logging.WARNING)
