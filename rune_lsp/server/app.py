"""The pygls server object: capabilities, settings, stdio; the protocol is `server.protocol`.

Nothing here may import pydantic or the run machinery: this module is on the path to the
`initialize` answer, and the editor waits for that on every start.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, BinaryIO

from lsprotocol import types
from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async
from pygls.lsp.server import LanguageServer

from rune_lsp import __version__
from rune_lsp.server.protocol import RuneProtocol
from rune_lsp.server.stdio import PipeReader, is_watchable
from rune_lsp.store.scrub import secrets_in, use_secrets

if TYPE_CHECKING:
    from rune_lsp.settings import ProviderName, Settings, SettingsProblem

log = logging.getLogger(__name__)


class RuneServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "rune-lsp",
            __version__,
            protocol_cls=RuneProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        # Validated in the `initialized` handler, after the `initialize` answer: pydantic
        # alone would add ~150 ms to every editor start.
        self._settings: Settings | None = None
        self.settings_problems: tuple[SettingsProblem, ...] = ()
        self.initialization_options: object = None
        self.on_request_cancelled: Callable[[Any], None] | None = None
        # `local` once the user accepted (or had provisioned) rune's own model while no
        # provider was set; re-applied on every settings read (server/local_setup.py).
        self.provider_fallback: ProviderName | None = None
        self.last_configuration: object = None

    def _start_io_async(
        self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
    ) -> None:
        """pygls' stdio server, reading stdin on the event loop when it is a pipe or socket
        (see `rune_lsp.server.stdio`), with pygls' threaded reader otherwise."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(self._serve(stdin or sys.stdin.buffer))
        except ConnectionError:  # a broken pipe, a reset socket
            log.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    async def _serve(self, stdin: BinaryIO) -> None:
        pipe = await PipeReader.open(stdin) if is_watchable(stdin) else None
        assert self._stop_event is not None
        try:
            await run_async(
                stop_event=self._stop_event,
                reader=pipe or StdinAsyncReader(stdin, self.thread_pool),
                protocol=self.protocol,
                logger=_ReaderLog(logging.getLogger("pygls.io_"), {}),  # type: ignore[arg-type]
                error_handler=self.report_server_error,
            )
        finally:
            if pipe is not None:
                pipe.close()

    @property
    def settings(self) -> Settings:
        """The current settings; the defaults until the client's have been read."""
        if self._settings is None:
            from rune_lsp.settings import Settings

            self._settings = Settings()
        return self._settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        self._settings = value
        use_secrets(secrets_in(value.api_key, value.resolved_base_url))

    @property
    def annotation_support(self) -> bool:
        """Mode A (VS Code's refactor preview, Neovim 0.12's prompt) when the client can
        confirm annotated edits. Not also `documentChanges`: Neovim 0.12 confirms annotations
        but does not advertise it, while it applies them (as every mode-B client here does)."""
        workspace = self.client_capabilities.workspace
        edit = workspace.workspace_edit if workspace else None
        return bool(edit and edit.change_annotation_support)

    @property
    def progress_support(self) -> bool:
        window = self.client_capabilities.window
        return bool(window and window.work_done_progress)

    @property
    def encoding(self) -> str | None:
        """The position encoding negotiated at initialize (None: UTF-16)."""
        encoding = self.workspace.position_encoding
        return None if encoding is None else str(getattr(encoding, "value", encoding))

    @property
    def inlay_hint_support(self) -> bool:
        document = self.client_capabilities.text_document
        return bool(document and document.inlay_hint is not None)

    @property
    def code_lens_support(self) -> bool:
        document = self.client_capabilities.text_document
        return bool(document and document.code_lens is not None)

    def refresh_inline(self) -> None:
        """Ask the client to fetch inlay hints and code lenses again (what a pending review
        shows changed), where it supports both the feature and the refresh. Nobody waits for
        the answer: a client that fails it simply shows the old ones until it asks itself."""
        workspace = self.client_capabilities.workspace
        wanted = (
            (
                types.WORKSPACE_INLAY_HINT_REFRESH,
                self.inlay_hint_support and workspace and workspace.inlay_hint,
            ),
            (
                types.WORKSPACE_CODE_LENS_REFRESH,
                self.code_lens_support and workspace and workspace.code_lens,
            ),
        )
        for method, capability in wanted:
            if capability and capability.refresh_support:
                answer = self.protocol.send_request_async(method, None)
                answer.add_done_callback(_ignore_failure)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # After shutdown the client no longer listens (and after exit stdout is closed, so
        # showing the error would fail again, and again): log it only.
        if self.protocol._shutdown:
            log.warning("after shutdown: %s", error)
            return
        super().report_server_error(error, source)

    def log(self, message: str, level: types.MessageType = types.MessageType.Info) -> None:
        """To `window/logMessage` and stderr (logging's default stream), never stdout."""
        log.log(_LEVELS.get(level, logging.INFO), "%s", message)
        self.window_log_message(types.LogMessageParams(type=level, message=message))

    def tell(self, message: str, level: types.MessageType = types.MessageType.Info) -> None:
        self.window_show_message(types.ShowMessageParams(type=level, message=message))

    @property
    def client_saves(self) -> bool:
        """The client answers `rune/saveDocuments` (our VS Code extension advertises it as the
        experimental capability `runeSaveDocuments`); LSP itself has no way to ask for a save."""
        return self._experimental("runeSaveDocuments")

    @property
    def client_approves_commands(self) -> bool:
        """The client answers `rune/approveCommand` (experimental `runeCommandApproval`): its
        own prompt, which can allow a command for the run or always."""
        return self._experimental("runeCommandApproval")

    @property
    def client_streams_text(self) -> bool:
        """The client shows `rune/modelText` (experimental `runeModelText`): the model's answer
        as it streams, beside the progress."""
        return self._experimental("runeModelText")

    def _experimental(self, name: str) -> bool:
        experimental = self.client_capabilities.experimental
        return isinstance(experimental, dict) and experimental.get(name) is True

    async def ask(
        self,
        method: str,
        params: object,
        wait: float | None = None,
        *,
        after_cancel: Callable[[asyncio.Future[Any]], None] | None = None,
    ) -> Any:
        """A request to the client that is withdrawn (`$/cancelRequest`) when the server stops
        waiting for it: after `wait` seconds (TimeoutError) or when the caller is cancelled.

        `after_cancel` gets the answer still to come when the caller is cancelled: an editor
        may act on a request it cannot withdraw (VS Code's open Refactor Preview), and what
        it then did must still be found out.
        """
        msg_id = f"rune-{uuid.uuid4().hex}"
        pending = self.protocol.send_request_async(method, params, msg_id=msg_id)
        try:
            if after_cancel is None:
                return await asyncio.wait_for(pending, wait)
            return await asyncio.wait_for(asyncio.shield(pending), wait)
        except TimeoutError:
            self.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            pending.cancel()
            raise
        except asyncio.CancelledError:
            self.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            if after_cancel is not None:
                after_cancel(pending)
            raise


def _ignore_failure(answer: asyncio.Future[Any]) -> None:
    if not answer.cancelled() and answer.exception() is not None:
        log.debug("the client failed a refresh: %s", answer.exception())


class _ReaderLog(logging.LoggerAdapter[logging.Logger]):
    """pygls' reader loop logs a traceback for every body that is not JSON (a cut frame, a
    wrong Content-Length): that is the client's bytes, not our bug, and one line says it.
    Anything else that escapes a message's handling keeps its traceback."""

    def exception(self, msg: object, *args: object, **kwargs: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, ValueError):  # JSONDecodeError, UnicodeDecodeError
            self.warning("unreadable message from the client: %s", error)
        else:
            super().exception(msg, *args, **kwargs)


_LEVELS = {
    types.MessageType.Error: logging.ERROR,
    types.MessageType.Warning: logging.WARNING,
    types.MessageType.Info: logging.INFO,
    types.MessageType.Log: logging.DEBUG,
}
