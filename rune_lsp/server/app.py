"""The pygls server object: capabilities, settings and the run manager it hands to features."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from rune_lsp import __version__
from rune_lsp.settings import Settings

log = logging.getLogger(__name__)


class RuneProtocol(LanguageServerProtocol):
    def _handle_cancel_notification(self, msg_id: Any) -> None:
        # pygls answers `$/cancelRequest` but lets an executeCommand coroutine that already
        # started run on; a run must really stop, so tell the run manager too.
        server = self._server
        if isinstance(server, RuneServer) and server.on_request_cancelled is not None:
            server.on_request_cancelled(msg_id)
        super()._handle_cancel_notification(msg_id)


class RuneServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "rune-lsp",
            __version__,
            protocol_cls=RuneProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        self.settings = Settings()
        self.initialization_options: object = None
        self.on_request_cancelled: Callable[[Any], None] | None = None

    @property
    def annotation_support(self) -> bool:
        """Mode A (VS Code's refactor preview) when the client can confirm annotated edits."""
        workspace = self.client_capabilities.workspace
        edit = workspace.workspace_edit if workspace else None
        return bool(edit and edit.change_annotation_support and edit.document_changes)

    @property
    def progress_support(self) -> bool:
        window = self.client_capabilities.window
        return bool(window and window.work_done_progress)

    def log(self, message: str, level: types.MessageType = types.MessageType.Info) -> None:
        """To `window/logMessage` and stderr (logging's default stream), never stdout."""
        log.log(_LEVELS.get(level, logging.INFO), "%s", message)
        self.window_log_message(types.LogMessageParams(type=level, message=message))

    def tell(self, message: str, level: types.MessageType = types.MessageType.Info) -> None:
        self.window_show_message(types.ShowMessageParams(type=level, message=message))


_LEVELS = {
    types.MessageType.Error: logging.ERROR,
    types.MessageType.Warning: logging.WARNING,
    types.MessageType.Info: logging.INFO,
    types.MessageType.Log: logging.DEBUG,
}
