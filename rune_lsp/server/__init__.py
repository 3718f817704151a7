"""The language server: pygls glue only. Features live in one module each.

The feature modules only register handlers; what the handlers work with is built on first
use (`Services`), so starting the server imports little beyond pygls and lsprotocol.
"""

from __future__ import annotations

import logging

from rune_lsp.server import code_actions, edits, fix, inline, lifecycle
from rune_lsp.server.app import RuneServer
from rune_lsp.server.services import Services


def create_server() -> RuneServer:
    _quiet_libraries()
    server = RuneServer()
    services = Services(server)
    lifecycle.register(server, services)
    fix.register(server, services)
    edits.register(server, services)
    code_actions.register(server, services)
    inline.register(server, services)
    return server


#: Libraries that log routine traffic at INFO: pygls every message it sends, httpx every
#: request to the model. That is debugging detail (`--log-level DEBUG` shows it), not a server
#: log, and on a zero-latency model a line per request is a measurable share of a step.
_CHATTY = ("pygls", "httpx", "httpcore")


def _quiet_libraries() -> None:
    if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
        for name in _CHATTY:
            logging.getLogger(name).setLevel(logging.WARNING)
