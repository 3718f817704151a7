"""The pygls server object: capabilities, settings and the protocol fixes rune needs.

Nothing here may import pydantic or the run machinery: this module is on the path to the
`initialize` answer, and the editor waits for that on every start.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import threading
import uuid
from collections.abc import Callable, Generator
from concurrent.futures import Future as ThreadFuture
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, BinaryIO

from cattrs import transform_error
from cattrs.errors import ClassValidationError
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from rune_lsp import __version__
from rune_lsp.server.stdio import PipeReader, is_watchable

if TYPE_CHECKING:
    from pygls.protocol.json_rpc import MessageCallback, MessageHandler, MsgId

    from rune_lsp.settings import ProviderName, Settings, SettingsProblem

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class UnreadableRequest:
    """A request whose params do not fit its method's lsprotocol type: it gets an error
    answer instead of the structured message pygls could not build."""

    id: int | str
    method: str
    code: int  # -32602 when the params do not fit; -32603 when structuring itself failed
    problem: str


class RuneProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]) -> Any:
        """pygls' structuring, minus its silence: a request whose params do not structure
        raised in the reader and was dropped, so the client waited for ever. It becomes an
        `UnreadableRequest`, which `handle_message` answers with -32602 (or -32603 when the
        structuring itself failed)."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            msg_id, method = data.get("id"), data.get("method")
            is_request = "result" not in data and "error" not in data
            if is_request and isinstance(msg_id, int | str) and isinstance(method, str):
                return UnreadableRequest(msg_id, method, exc.CODE, _problem(exc))
            raise

    def handle_message(self, message: Any) -> None:
        if isinstance(message, UnreadableRequest):
            # Answered whatever the state (even after shutdown): an error answer changes nothing.
            log.warning("invalid params for %s: %s", message.method, message.problem)
            what = "Invalid params" if message.code == JsonRpcInvalidParams.CODE else "Error"
            self._send_response(
                message.id,
                error=types.ResponseError(
                    code=message.code, message=f"{what} for {message.method}: {message.problem}"
                ),
            )
            return
        super().handle_message(message)

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' shutdown, minus its crash: it cancels the requests in flight while iterating
        the very dict their cancel callbacks remove them from, so a shutdown during a run
        failed ("dictionary changed size during iteration")."""
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True
        return None

    def _execute_handler(
        self,
        msg_id: MsgId,
        handler: MessageHandler,
        callback: MessageCallback,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        """pygls' handler execution, minus its leak: a generator handler (executeCommand is
        one) runs each step under a fresh uuid id in `_request_futures`, and so does an async
        notification handler, and pygls only ever removes the ids of client requests. Every
        `rune.fixThis` left its future and result behind (~2 KB a run); drop each finished
        future here instead."""
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            future.add_done_callback(partial(self._forget_future, msg_id))

    def _forget_future(
        self, msg_id: MsgId, future: asyncio.Future[Any] | ThreadFuture[Any]
    ) -> None:
        # Only this very future: the id may have been reused or answered in the meantime.
        if self._request_futures.get(msg_id) is future:
            del self._request_futures[msg_id]

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        # pygls answers `$/cancelRequest` but lets an executeCommand coroutine that already
        # started run on; a run must really stop, so tell the run manager too.
        server = self._server
        if isinstance(server, RuneServer) and server.on_request_cancelled is not None:
            server.on_request_cancelled(msg_id)
        super()._handle_cancel_notification(msg_id)

    def _handle_response(
        self, msg_id: Any, result: Any | None = None, error: Any | None = None
    ) -> None:
        # An answer to a request the server stopped waiting for (a showMessageRequest that
        # timed out, an applyEdit of a cancelled run). pygls would try to resolve the cancelled
        # future, fail, and show the user "Error in server"; it is simply too late.
        future = self._request_futures.get(msg_id)
        if future is not None and future.done():
            self._request_futures.pop(msg_id, None)
            log.debug("ignoring the late answer to request %s", msg_id)
            return
        super()._handle_response(msg_id, result, error)


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
        # provider was set; re-applied on every settings read (server/localmodel.py).
        self.provider_fallback: ProviderName | None = None
        self.last_configuration: object = None

    def _start_io_async(
        self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
    ) -> None:
        """pygls' stdio server, reading stdin on the event loop when it is a pipe or socket
        (see `rune_lsp.server.stdio`); pygls' threaded reader otherwise."""
        source = stdin or sys.stdin.buffer
        if not is_watchable(source):
            super()._start_io_async(stdin, stdout)
            return
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(self._serve(source))
        except ConnectionError:  # a broken pipe, a reset socket
            log.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    async def _serve(self, stdin: BinaryIO) -> None:
        reader = await PipeReader.open(stdin)
        assert self._stop_event is not None
        try:
            await run_async(
                stop_event=self._stop_event,
                reader=reader,
                protocol=self.protocol,
                logger=logging.getLogger("pygls.io_"),
                error_handler=self.report_server_error,
            )
        finally:
            reader.close()

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
        experimental = self.client_capabilities.experimental
        return isinstance(experimental, dict) and experimental.get("runeSaveDocuments") is True

    async def ask(self, method: str, params: object, wait: float | None = None) -> Any:
        """A request to the client that is withdrawn (`$/cancelRequest`) when the server stops
        waiting for it: after `wait` seconds (TimeoutError) or when the caller is cancelled."""
        msg_id = f"rune-{uuid.uuid4().hex}"
        pending = self.protocol.send_request_async(method, params, msg_id=msg_id)
        try:
            return await asyncio.wait_for(pending, wait)
        except (TimeoutError, asyncio.CancelledError):
            self.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            raise


def _problem(exc: JsonRpcException) -> str:
    """What cattrs found wrong, one line per field (`... @ $.params.textDocument`)."""
    cause = exc.__cause__
    if isinstance(cause, ClassValidationError):
        return "; ".join(_camel_path(line) for line in transform_error(cause, path="$"))
    return str(cause or exc) or type(exc).__name__


def _camel_path(line: str) -> str:
    # cattrs names lsprotocol's Python attributes; the client wrote the wire's camelCase.
    text, at, path = line.rpartition(" @ ")
    if not at:
        return line
    return f"{text} @ {re.sub(r'_([a-z])', lambda m: m.group(1).upper(), path)}"


_LEVELS = {
    types.MessageType.Error: logging.ERROR,
    types.MessageType.Warning: logging.WARNING,
    types.MessageType.Info: logging.INFO,
    types.MessageType.Log: logging.DEBUG,
}
