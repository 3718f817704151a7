"""The language server: pygls glue only. Features live in one module each.

The feature modules only register handlers; what the handlers work with is built on first
use (`Services`), so starting the server imports little beyond pygls and lsprotocol.
"""

from __future__ import annotations

import logging

from rune_lsp.server import code_actions, edits, fix, lifecycle
from rune_lsp.server.app import RuneServer
from rune_lsp.server.services import Services


def create_server() -> RuneServer:
    _quiet_pygls()
    server = RuneServer()
    services = Services(server)
    lifecycle.register(server, services)
    fix.register(server, services)
    edits.register(server, services)
    code_actions.register(server, services)
    return server


def _quiet_pygls() -> None:
    """pygls logs every message it sends at INFO; that is debugging detail, not a server log."""
    if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
        logging.getLogger("pygls").setLevel(logging.WARNING)
