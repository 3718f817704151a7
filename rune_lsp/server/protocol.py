"""The JSON-RPC protocol, as pygls implements it, minus what rune cannot live with.

- A message that does not fit (a request's params, an answer to one of our requests, a
  notification) is one log line and the right consequence: an error answer, a failed request,
  a skip. pygls logged a traceback and dropped it, leaving a client or a run waiting for ever.
- Nothing the editor shows or logs (messages, progress, an applyEdit's label, diagnostics,
  inlay hints, a command's result such as the run result) carries a secret: every message
  leaves through `_send_data`, which scrubs its strings (issue 25, item 2).
- Shutdown, finished futures, cancels and late answers are handled without crashing or leaking.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Generator
from concurrent.futures import Future as ThreadFuture
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

import attrs
from cattrs import transform_error
from cattrs.errors import ClassValidationError
from lsprotocol import types
from lsprotocol.types import ResponseErrorMessage
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
)
from pygls.protocol.language_server import lsp_method

from rune_lsp.store.scrub import scrub_shown

if TYPE_CHECKING:
    from pygls.protocol.json_rpc import MessageCallback, MessageHandler, MsgId

log = logging.getLogger(__name__)


class UnusableAnswerError(JsonRpcException):
    """The client answered one of our requests with something that is no JSON-RPC response
    or does not fit the method's result type. The request fails with this, instead of waiting
    for ever for an answer pygls would have dropped."""

    CODE = -32600  # Invalid Request: what the client sent is not a valid response object


@dataclass(frozen=True)
class UnreadableMessage:
    """A message that does not fit JSON-RPC or its method's lsprotocol type. A request gets an
    error answer, an answer to one of our requests fails that request, a notification is
    logged and skipped; each is one log line, never a traceback."""

    kind: Literal["request", "response", "notification"]
    id: int | str | None
    method: str  # "" for a response
    code: int  # -32602 when the params do not fit; -32603 when structuring itself failed
    problem: str


class RuneProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]) -> Any:
        """pygls' structuring, minus its silence and its noise. pygls logged a traceback for
        every message that did not fit, then dropped it: a request was never answered, an
        answer to our applyEdit left the run waiting for ever. Such a message becomes an
        `UnreadableMessage` that `handle_message` deals with in one line."""
        if "jsonrpc" not in data:
            return data  # json.loads hands every nested object here too: those stay dicts
        try:
            return self._converter.structure(data, self._message_type(data))
        except Exception as exc:
            return _unreadable(data, exc)

    def _message_type(self, data: dict[str, Any]) -> Any:
        """The type pygls would structure `data` as (`JsonRPCProtocol.structure_message`),
        and a ValueError for an answer that is no JSON-RPC response at all."""
        if "id" not in data:
            return self.get_message_type(data.get("method", "")) or JsonRPCNotification
        if "method" in data:
            return self.get_message_type(data["method"]) or JsonRPCRequestMessage
        msg_id = data["id"]
        expected = self._result_types.pop(msg_id, None) if isinstance(msg_id, int | str) else None
        if "error" in data:
            if not isinstance(data["error"], dict):
                raise ValueError(f"its error is not an object: {data['error']!r:.80}")
            return ResponseErrorMessage
        if "result" not in data:
            raise ValueError("it has neither a result nor an error")
        return expected or JsonRPCResponseMessage

    def handle_message(self, message: Any) -> None:
        if isinstance(message, UnreadableMessage):
            self._handle_unreadable(message)
        elif not attrs.has(type(message)):  # JSON, but not a JSON-RPC message
            log.warning("ignoring a message that is not JSON-RPC 2.0: %.120r", message)
        else:
            super().handle_message(message)

    def _handle_unreadable(self, message: UnreadableMessage) -> None:
        if message.kind == "response":
            self._fail_request(message.id, message.problem)
            return
        if message.kind == "notification" or message.id is None:
            # Nothing can be answered: a notification, or a request whose id is no id.
            log.warning("invalid params for %s: %s; skipped", message.method, message.problem)
            return
        # Answered whatever the state (even after shutdown): an error answer changes nothing.
        log.warning("invalid params for %s: %s", message.method, message.problem)
        what = "Invalid params" if message.code == JsonRpcInvalidParams.CODE else "Error"
        self._send_response(
            message.id,
            error=types.ResponseError(
                code=message.code, message=f"{what} for {message.method}: {message.problem}"
            ),
        )

    def _fail_request(self, msg_id: MsgId | None, problem: str) -> None:
        """An unusable answer to one of our requests: that request fails, nothing waits."""
        future = self._request_futures.pop(msg_id, None) if msg_id is not None else None
        if future is None or future.done():
            log.warning("ignoring an unusable answer (id %r): %s", msg_id, problem)
            return
        log.warning("unusable answer to request %s: %s", msg_id, problem)
        future.set_exception(UnusableAnswerError(f"unusable answer: {problem}"))

    def _send_handler_result(self, future: Any, *, msg_id: MsgId) -> None:
        """pygls' answer to a request, minus the traceback it logs when a handler refused the
        client's request with a JSON-RPC error (a command's -32602): that is the client's
        mistake, answered as such, and one line says it."""
        error = None if future.cancelled() else future.exception()
        if not isinstance(error, JsonRpcException):
            super()._send_handler_result(future, msg_id=msg_id)
            return
        self._request_futures.pop(msg_id, None)
        log.warning("request %s refused: %s", msg_id, error)
        self._send_response(msg_id, error=error.to_response_error())

    def _send_data(self, data: Any) -> None:
        """Every message to the editor leaves through here: its shown text is scrubbed."""
        super()._send_data(self._shown(data) if data else data)

    def _shown(self, value: Any, key: str = "") -> Any:
        """`value` with every string the editor may show scrubbed (`store.scrub`), the way
        pygls' own serialisation (`_serialize_message`) walks it. What an edit writes, and
        where, is left as it is (`_LANDS`)."""
        if isinstance(value, str):
            return value if key in _LANDS else scrub_shown(value)
        if isinstance(value, dict):
            return {name: self._shown(item, name) for name, item in value.items()}
        if isinstance(value, list | tuple):
            return [self._shown(item, key) for item in value]
        if attrs.has(type(value)):
            return self._shown(self._converter.unstructure(value), key)
        return value

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
        on_cancelled = getattr(self._server, "on_request_cancelled", None)
        if on_cancelled is not None:  # RuneServer's hook
            on_cancelled(msg_id)
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


#: Keys whose string is what an edit writes, or where: never scrubbed, or what lands would
#: differ from the proposal the user accepted (the tools refuse a change that holds a secret).
_LANDS = frozenset({"newText", "uri"})


def _unreadable(data: dict[str, Any], exc: Exception) -> UnreadableMessage:
    msg_id, method = data.get("id"), data.get("method")
    usable_id = msg_id if isinstance(msg_id, int | str) and not isinstance(msg_id, bool) else None
    code = (
        JsonRpcInvalidParams.CODE
        if isinstance(exc, ClassValidationError)
        else JsonRpcInternalError.CODE
    )
    if "id" in data and "method" not in data:
        return UnreadableMessage("response", usable_id, "", code, _problem(exc))
    kind: Literal["request", "notification"] = "request" if "id" in data else "notification"
    name = method if isinstance(method, str) and method else repr(method)
    return UnreadableMessage(kind, usable_id, name, code, _problem(exc))


def _problem(exc: Exception) -> str:
    """What cattrs found wrong, one line per field (`... @ $.params.textDocument`)."""
    if isinstance(exc, ClassValidationError):
        return "; ".join(_camel_path(line) for line in transform_error(exc, path="$"))
    return str(exc) or type(exc).__name__


def _camel_path(line: str) -> str:
    # cattrs names lsprotocol's Python attributes; the client wrote the wire's camelCase.
    text, at, path = line.rpartition(" @ ")
    if not at:
        return line
    return f"{text} @ {re.sub(r'_([a-z])', lambda m: m.group(1).upper(), path)}"


def plain(value: object) -> Any:
    """An answer to one of rune's own requests as plain JSON values: pygls hands the result of
    a method it does not know over as `pygls.protocol.Object` namedtuples."""
    as_dict = getattr(value, "_asdict", None)
    if callable(as_dict):
        return {key: plain(item) for key, item in as_dict().items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value
