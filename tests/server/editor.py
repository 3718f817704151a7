"""An editor in the test's own process and event loop: the real server, no stdio, no HTTP.

The server is `create_server()` with this editor as its pygls writer: every message the server
sends arrives in `write`, which answers the server's requests (progress tokens, applyEdit,
showMessageRequest, rune/saveDocuments) the way the test set up, and keeps buffers, diagnostics
and progress. The model is a `ScriptedModel`; the tools are the real ones over a temp
workspace. A run takes milliseconds, so cancel, supersede and the review paths are tested
without the e2e tier.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from lsprotocol import types
from pygls.uris import to_fs_path

from rune_lsp.interface import DIAGNOSTIC_SOURCE, FIX_THIS
from rune_lsp.server import create_server
from tests.e2e.workspace_edit import EditFailed, OpenDocument, Stager
from tests.loop.fakes import ScriptedModel

APP_PY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a + b\n"

CAPABILITIES: dict[str, dict[str, Any]] = {
    # Mode A: change annotations and documentChanges, as VS Code advertises them.
    "vscode": {
        "workspace": {
            "applyEdit": True,
            "workspaceEdit": {"documentChanges": True, "changeAnnotationSupport": {}},
        },
        "window": {"workDoneProgress": True},
    },
    # Mode A too: Neovim 0.12 confirms change annotations but does not advertise
    # documentChanges (it applies them all the same).
    "neovim-0.12": {
        "workspace": {
            "applyEdit": True,
            "workspaceEdit": {"changeAnnotationSupport": {"groupsOnLabel": True}},
        },
        "window": {"workDoneProgress": True},
    },
    # Mode B: any other client.
    "neovim": {
        "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}},
        "window": {"workDoneProgress": True},
    },
}
Kind = Literal["vscode", "neovim-0.12", "neovim"]
#: Bound for what a test waits on: a guard against a hang, never a speed target (a run that
#: imports the run machinery for the first time took over 5 s on a loaded machine).
WAIT = 30.0


@dataclass(frozen=True)
class Apply:
    """How the editor answers one `workspace/applyEdit`: apply it (`accept`), answer
    `applied: false` with `reason`, or a JSON-RPC `error`. `type_first` replaces text in the
    buffer (old, new) before the editor looks at the edit, as a user typing meanwhile."""

    accept: bool = True
    reason: str | None = None
    error: str | None = None
    type_first: tuple[str, str] | None = None
    #: Keep the request open (a Refactor Preview nobody has answered yet) until `release()`.
    hold: bool = False
    #: Land this instead of the edit as sent: the buffer's text after, from the text before
    #: (the VS Code extension's inline review applies the hunks the user took, where they are).
    lands: Callable[[str], str] | None = None


@dataclass
class Buffer:
    text: str
    version: int


class CommandError(Exception):
    """The server answered a command with a JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class InProcessEditor:
    root: Path
    state_dir: Path
    model: ScriptedModel
    kind: Kind = "neovim"
    settings: dict[str, Any] = field(default_factory=dict)
    applies: deque[Apply] = field(default_factory=deque)
    #: The button the user presses on a showMessageRequest; None: never answers.
    message_answer: str | None = "Run"
    message_error: str | None = None
    #: Advertise `experimental.runeSaveDocuments` and save the buffers `rune/saveDocuments` names.
    saves: bool = False
    #: Advertise `experimental.runeCommandApproval`: the server asks `rune/approveCommand`,
    #: answered with `approval` (None: never answers).
    approves: bool = False
    approval: dict[str, Any] | None = field(default_factory=lambda: {"decision": "run"})
    sent: list[dict[str, Any]] = field(default_factory=list)
    buffers: dict[str, Buffer] = field(default_factory=dict)
    diagnostics: dict[str, list[types.Diagnostic]] = field(default_factory=dict)
    held: list[tuple[Any, dict[str, Any], Apply]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.server = create_server()
        self.server.protocol.set_writer(self)
        self._ids = itertools.count(1)
        self._answers: dict[int, asyncio.Future[Any]] = {}

    # --- what the server sends ----------------------------------------------------------------

    def write(self, data: bytes) -> None:
        message = json.loads(data.split(b"\r\n\r\n", 1)[1])
        self.sent.append(message)
        method = message.get("method")
        if method is None:
            self._answered(message)
        elif "id" in message:
            asyncio.get_running_loop().call_soon(self._answer, message)
        elif method == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            params = message["params"]
            converter = self.server.protocol._converter
            self.diagnostics[params["uri"]] = [
                converter.structure(d, types.Diagnostic) for d in params["diagnostics"]
            ]

    def _answered(self, message: dict[str, Any]) -> None:
        waiting = self._answers.pop(message["id"], None)
        if waiting is None or waiting.done():
            return
        if "error" in message:
            error = message["error"]
            waiting.set_exception(CommandError(error["code"], error["message"]))
        else:
            waiting.set_result(message.get("result"))

    def _answer(self, request: dict[str, Any]) -> None:
        method, params = request["method"], request.get("params")
        if method == types.WORKSPACE_APPLY_EDIT:
            self._apply(request["id"], params)
        elif method == types.WINDOW_SHOW_MESSAGE_REQUEST:
            if self.message_error is not None:
                self._reply(request["id"], error=self.message_error)
            elif self.message_answer is not None:
                self._reply(request["id"], {"title": self.message_answer})
        elif method == "rune/approveCommand":
            if self.approval is not None:
                self._reply(request["id"], self.approval)
        else:  # progress tokens, rune/saveDocuments
            if method == "rune/saveDocuments":
                for uri in params["uris"]:
                    Path(to_fs_path(uri) or uri).write_text(self.buffers[uri].text, "utf-8")
            self._reply(request["id"], None)

    def _apply(self, request_id: Any, params: dict[str, Any]) -> None:
        policy = self.applies.popleft() if self.applies else Apply()
        self._carry_out(request_id, params, policy)

    def release(self) -> None:
        """Answer the oldest held applyEdit the way its policy says, as if only now."""
        request_id, params, policy = self.held.pop(0)
        self._carry_out(request_id, params, replace(policy, hold=False))

    def _carry_out(self, request_id: Any, params: dict[str, Any], policy: Apply) -> None:
        if policy.hold:
            self.held.append((request_id, params, policy))
            return
        if policy.type_first is not None:
            self.type(*policy.type_first)
        if policy.error is not None:
            self._reply(request_id, error=policy.error)
            return
        if not policy.accept:
            self._reply(request_id, {"applied": False, "failureReason": policy.reason})
            return
        if policy.lands is not None:
            [uri] = [change["textDocument"]["uri"] for change in params["edit"]["documentChanges"]]
            # Before the answer, as VS Code does.
            self._changed(uri, policy.lands(self.buffers[uri].text))
            reason = {"failureReason": policy.reason} if policy.reason else {}
            self._reply(request_id, {"applied": True, **reason})
            return
        converter = self.server.protocol._converter
        edit = converter.structure(params["edit"], types.WorkspaceEdit)
        open_documents = {
            uri: OpenDocument(buffer.text, buffer.version) for uri, buffer in self.buffers.items()
        }
        try:
            staged = Stager(open_documents, "utf-16").stage(edit)
        except EditFailed as exc:
            self._reply(request_id, {"applied": False, "failureReason": str(exc) or None})
            return
        reason = {"failureReason": policy.reason} if policy.reason else {}
        self._reply(request_id, {"applied": True, **reason})
        for document in staged:  # the change follows the answer, as editors send it
            asyncio.get_running_loop().call_soon(self._changed, document.uri, document.text)

    def _changed(self, uri: str, text: str) -> None:
        buffer = self.buffers.get(uri)
        if buffer is None:
            self.buffers[uri] = Buffer(text, 1)
            self.notify(
                types.TEXT_DOCUMENT_DID_OPEN,
                {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
            )
            return
        buffer.text, buffer.version = text, buffer.version + 1
        self.notify(
            types.TEXT_DOCUMENT_DID_CHANGE,
            {
                "textDocument": {"uri": uri, "version": buffer.version},
                "contentChanges": [{"text": text}],
            },
        )

    # --- what the editor sends ----------------------------------------------------------------

    def _receive(self, message: dict[str, Any]) -> None:
        protocol = self.server.protocol
        protocol.handle_message(protocol.structure_message({"jsonrpc": "2.0", **message}))

    def _reply(self, request_id: Any, result: Any = None, *, error: str | None = None) -> None:
        if error is not None:
            self._receive({"id": request_id, "error": {"code": -32603, "message": error}})
        else:
            self._receive({"id": request_id, "result": result})

    def notify(self, method: str, params: Any) -> None:
        self._receive({"method": method, "params": params})

    def request(self, method: str, params: Any) -> tuple[int, asyncio.Future[Any]]:
        request_id = next(self._ids)
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._answers[request_id] = answer
        self._receive({"id": request_id, "method": method, "params": params})
        return request_id, answer

    async def initialize(self) -> InProcessEditor:
        # An explicit provider: with none, the server probes for Ollama and may switch to a
        # local model this machine has set up (providers/resolve.py), which is not under test.
        options = {"stateDir": str(self.state_dir), "provider": "ollama", **self.settings}
        _, answer = self.request(
            types.INITIALIZE,
            {
                "processId": None,
                "rootUri": self.root.as_uri(),
                "workspaceFolders": [{"uri": self.root.as_uri(), "name": "ws"}],
                "capabilities": {
                    **CAPABILITIES[self.kind],
                    "experimental": {
                        "runeSaveDocuments": self.saves,
                        "runeCommandApproval": self.approves,
                    },
                },
                "initializationOptions": options,
            },
        )
        await asyncio.wait_for(answer, WAIT)
        self.notify(types.INITIALIZED, {})
        return self

    async def shutdown(self) -> None:
        _, answer = self.request(types.SHUTDOWN, None)
        await asyncio.wait_for(answer, WAIT)

    def uri(self, rel: str = "app.py") -> str:
        return (self.root / rel).as_uri()

    def open(self, rel: str = "app.py") -> str:
        uri = self.uri(rel)
        self._changed(uri, (self.root / rel).read_text(encoding="utf-8"))
        return uri

    def type(self, old: str, new: str, rel: str = "app.py") -> None:
        """The user replaces `old` with `new` in the open buffer of `rel`."""
        uri = self.uri(rel)
        self._changed(uri, self.buffers[uri].text.replace(old, new, 1))

    def command(self, command: str, *arguments: Any) -> asyncio.Future[Any]:
        return self.request(
            types.WORKSPACE_EXECUTE_COMMAND, {"command": command, "arguments": list(arguments)}
        )[1]

    def fix(self, rel: str = "app.py", **argument: Any) -> tuple[int, asyncio.Future[Any]]:
        """Start `rune.fixThis` on `rel`; the request id (for `$/cancelRequest`) and its answer."""
        return self.request(
            types.WORKSPACE_EXECUTE_COMMAND,
            {"command": FIX_THIS, "arguments": [{"uri": self.uri(rel), **argument}]},
        )

    async def error_of(self, answer: asyncio.Future[Any]) -> CommandError:
        try:
            result = await asyncio.wait_for(answer, WAIT)
        except CommandError as exc:
            return exc
        raise AssertionError(f"no error, the answer was {result!r}")

    # --- what the editor shows ----------------------------------------------------------------

    def rune_diagnostics(self, rel: str = "app.py") -> list[types.Diagnostic]:
        found = self.diagnostics.get(self.uri(rel), [])
        return [d for d in found if d.source == DIAGNOSTIC_SOURCE]

    def requests(self, method: str) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("method") == method and "id" in m]

    def notifications(self, method: str) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("method") == method and "id" not in m]

    def progress_tokens(self) -> list[str]:
        return [m["params"]["token"] for m in self.requests(types.WINDOW_WORK_DONE_PROGRESS_CREATE)]

    def progress_end(self, token: str) -> str | None:
        for message in self.notifications(types.PROGRESS):
            value = message["params"]["value"]
            if message["params"]["token"] == token and value["kind"] == "end":
                return str(value.get("message"))
        return None


async def finished(answer: asyncio.Future[object]) -> dict[str, Any]:
    """The run result a `rune.fixThis` answered with."""
    result = await asyncio.wait_for(answer, WAIT)
    assert isinstance(result, dict)
    return result


def told(editor: InProcessEditor) -> str:
    """What the model was told last (the result of its last call, or a notice)."""
    return editor.model.calls[-1].messages[-1].content


async def until(check: Callable[[], Any], what: str, within: float = WAIT) -> Any:
    """Wait (on the event loop) until `check()` is truthy and return it."""
    deadline = asyncio.get_running_loop().time() + within
    while not (found := check()):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.002)
    return found


def unfreeze() -> None:
    """Building the run machinery freezes what is imported (gc.freeze, for the server's
    lifetime); a test process lives on, so give it back to the collector."""
    gc.unfreeze()
