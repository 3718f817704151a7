"""A fake editor on top of pytest-lsp's client: buffers, review answers and recorded traffic.

It behaves like the editors the contract names, as far as the server can tell:

- documents are opened (`didOpen`) and typed into (`didChange`, incremental) with versions;
- `workspace/applyEdit` is really applied to the buffers: `TextDocumentEdit` with a version
  check, `CreateFile` (created empty on disk, as VS Code does), `AnnotatedTextEdit`. A VS Code-like
  editor refuses a stale version (`applied: false`) and lets the test keep only some
  confirm-needing hunks (its refactor preview); a Neovim-like editor skips a stale edit but
  still answers `applied: true`, as Neovim does. The `didChange`/`didOpen` follows shortly
  AFTER the reply, as real clients send it. Files reach the disk only when the test saves;
- `window/showMessageRequest` gets `Run`, `Deny` or never an answer, per test;
- diagnostics, applyEdit params, message requests and all traffic are recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from lsprotocol import types
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES

from tests.e2e.client import EditorClient
from tests.e2e.wire import WireResult
from tests.e2e.workspace_edit import EditFailed, OpenDocument, Staged, Stager
from tests.lsp_text import apply_edits, range_of

log = logging.getLogger(__name__)

T = TypeVar("T")
Kind = Literal["vscode", "neovim", "neovim-0.7", "emacs"]
MessageAnswer = Literal["Run", "Deny", "never", "error"]

#: Seconds between an applyEdit reply and the didChange/didOpen that follows it.
CHANGE_DELAY = 0.01
#: Bounds on waits: guards against a hang, never speed targets (a busy 2-core CI machine).
WAIT = 30.0  # default bound for anything a test waits on
RUN_WAIT = 60.0  # a whole run


@dataclass(frozen=True)
class Typing:
    """The user replaces `old` (unique in the buffer) with `new` in an open document."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class ApplyPolicy:
    """How the editor answers one `workspace/applyEdit`.

    `keep`: indexes (0-based, in edit order) of the confirm-needing hunks the user leaves
    ticked in VS Code's preview; None keeps all. `type_first`: the user types this before the
    editor handles the edit. `save`: write the touched files to disk after applying.
    `delay`: seconds the preview stays open before the answer. `sync=False`: the editor tells
    the server about the changed buffers only when the test calls `sync()` (Emacs' eglot sends
    didChange once idle). `error`: answer with a JSON-RPC error instead (eglot's "no").
    `raw`: answer with this JSON text as it is, `@ID@` standing for the request's id (a broken
    editor), whether the edit was applied (`accept`) or not.
    """

    accept: bool = True
    keep: frozenset[int] | None = None
    type_first: Typing | None = None
    save: bool = False
    delay: float = 0.0
    sync: bool = True
    error: str | None = None
    raw: str | None = None


@dataclass
class Buffer:
    uri: str
    path: Path
    text: str
    version: int


@dataclass
class ApplyRecord:
    params: types.ApplyWorkspaceEditParams
    received_seq: int
    result: types.ApplyWorkspaceEditResult | None = None
    answered_seq: int | None = None


class EditorRefusal(Exception):
    """Raised by a handler: the client answers the server's request with an error."""


@dataclass
class FixRequest:
    """A `rune.fixThis` in flight: its JSON-RPC id (for `$/cancelRequest`) and its answer."""

    msg_id: str
    task: asyncio.Future[Any]

    async def result(self, within: float = RUN_WAIT) -> WireResult:
        raw = await asyncio.wait_for(asyncio.shield(self.task), within)
        return WireResult.model_validate(raw)


class FakeEditor:
    def __init__(self, client: EditorClient, workspace: Path, kind: Kind) -> None:
        self.client = client
        self.workspace = workspace
        self.kind = kind
        self.encoding = "utf-16"
        self.buffers: dict[str, Buffer] = {}
        self.apply_records: list[ApplyRecord] = []
        self.apply_policies: deque[ApplyPolicy] = deque()
        self.default_apply = ApplyPolicy()
        self.message_requests: list[types.ShowMessageRequestParams] = []
        self.message_answers: deque[MessageAnswer] = deque()
        self.default_message_answer: MessageAnswer = "Deny"
        self.diagnostics_log: list[types.PublishDiagnosticsParams] = []
        self.refreshes: list[str] = []  # inlay hint / code lens refresh requests, in order
        self.max_edits_in_flight = 0
        self.crashed = False
        self.exit_problem: str | None = None
        self.unsynced: list[tuple[Callable[..., None], tuple[Any, ...]]] = []
        self._edits_in_flight = 0
        self._ids = itertools.count(1)
        self._changed = asyncio.Event()
        self._closing = asyncio.Event()
        client.on_traffic.append(self._changed.set)
        self._register()

    # --- setup ------------------------------------------------------------------------------

    def _register(self) -> None:
        client = self.client
        own = {
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
            types.WORKSPACE_APPLY_EDIT,
            types.WINDOW_SHOW_MESSAGE_REQUEST,
        }
        for method, handler in DEFAULT_CLIENT_FEATURES.items():
            if method not in own:
                client.feature(method)(handler)

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def diagnostics(ls: EditorClient, params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics_log.append(params)
            ls.diagnostics[params.uri] = params.diagnostics

        @client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
        def inlay_hint_refresh(ls: EditorClient, params: None) -> None:
            self.refreshes.append(types.WORKSPACE_INLAY_HINT_REFRESH)

        @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def code_lens_refresh(ls: EditorClient, params: None) -> None:
            self.refreshes.append(types.WORKSPACE_CODE_LENS_REFRESH)

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        async def apply_edit(
            ls: EditorClient, params: types.ApplyWorkspaceEditParams
        ) -> types.ApplyWorkspaceEditResult:
            return await self._apply_edit(params)

        @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        async def show_message_request(
            ls: EditorClient, params: types.ShowMessageRequestParams
        ) -> types.MessageActionItem | None:
            return await self._answer_message(params)

    async def initialize(
        self,
        capabilities: types.ClientCapabilities,
        initialization_options: dict[str, Any] | None,
        configuration: dict[str, Any] | None = None,
        *,
        roots: bool = True,
    ) -> types.InitializeResult:
        """`roots=False`: no rootUri and no workspaceFolders (`nvim ~/notes.md` without root
        detection); the files still live under `self.workspace`."""
        if configuration is not None:
            self.client.set_configuration(configuration, section="rune")
        uri = self.workspace.as_uri()
        folders = [types.WorkspaceFolder(uri=uri, name=self.workspace.name)]
        result = await asyncio.wait_for(
            self.client.initialize_session(
                types.InitializeParams(
                    capabilities=capabilities,
                    root_uri=uri if roots else None,
                    workspace_folders=folders if roots else None,
                    initialization_options=initialization_options,
                )
            ),
            WAIT,
        )
        encoding = result.capabilities.position_encoding
        self.encoding = str(getattr(encoding, "value", encoding or "utf-16"))
        return result

    async def crash(self) -> None:
        """The server dies (killed) with whatever it was doing."""
        process = self.client.process
        assert process is not None
        self.crashed = True
        process.kill()
        await asyncio.wait_for(process.wait(), WAIT)

    async def close(self) -> None:
        """shutdown/exit, and kill the process if it does not go by itself. How it went is
        kept in `exit_problem` (None: a clean shutdown and exit code 0)."""
        self._closing.set()
        process = self.client.process
        if process is not None and process.returncode is None:
            try:
                await asyncio.wait_for(self.client.shutdown_session(), WAIT)
            except Exception as exc:
                self.exit_problem = f"shutdown failed: {exc!r}"
        if process is not None and process.returncode is None:
            self.exit_problem = self.exit_problem or "the server did not exit; killed"
            process.kill()
            await asyncio.wait_for(process.wait(), WAIT)
        elif process is not None and process.returncode not in (0, None) and not self.crashed:
            self.exit_problem = self.exit_problem or f"exit code {process.returncode}"
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.client.stop(), WAIT)

    # --- documents --------------------------------------------------------------------------

    @property
    def state_dir(self) -> Path:
        assert self.client.state_dir is not None
        return self.client.state_dir

    def path(self, rel: str) -> Path:
        return self.workspace / rel

    def uri(self, rel: str) -> str:
        return self.path(rel).as_uri()

    def open(self, rel: str) -> Buffer:
        path = self.path(rel)
        buffer = Buffer(path.as_uri(), path, path.read_text(encoding="utf-8"), 1)
        self.buffers[buffer.uri] = buffer
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=buffer.uri, language_id="python", version=1, text=buffer.text
                )
            )
        )
        return buffer

    def text(self, rel: str) -> str:
        return self.buffers[self.uri(rel)].text

    def type(self, typing: Typing) -> None:
        buffer = self.buffers[self.uri(typing.path)]
        where = range_of(buffer.text, typing.old, self.encoding)
        buffer.text = apply_edits(buffer.text, [(where, typing.new)], self.encoding)
        buffer.version += 1
        self._did_change(buffer.uri, buffer.version, [(where, typing.new)])

    def save(self, rel: str) -> None:
        buffer = self.buffers[self.uri(rel)]
        buffer.path.write_text(buffer.text, encoding="utf-8")

    def _did_change(self, uri: str, version: int, edits: Sequence[tuple[types.Range, str]]) -> None:
        # One change per edit, bottom-up, so each range is still valid when the server applies
        # the changes in order (what VS Code sends for a multi-range edit).
        ordered = sorted(edits, key=lambda e: (e[0].start.line, e[0].start.character), reverse=True)
        changes: list[types.TextDocumentContentChangeEvent] = [
            types.TextDocumentContentChangePartial(range=where, text=new) for where, new in ordered
        ]
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=changes,
            )
        )

    # --- workspace/applyEdit ----------------------------------------------------------------

    async def _apply_edit(
        self, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        record = ApplyRecord(params, received_seq=len(self.client.traffic))
        self.apply_records.append(record)
        self._edits_in_flight += 1
        self.max_edits_in_flight = max(self.max_edits_in_flight, self._edits_in_flight)
        policy = self.apply_policies.popleft() if self.apply_policies else self.default_apply
        try:
            if policy.delay:
                await asyncio.sleep(policy.delay)
            if policy.type_first is not None:
                self.type(policy.type_first)
            if policy.raw is not None:
                self.client.protocol.answer_raw(policy.raw)
            result = self._decide(params.edit, policy)
        finally:
            self._edits_in_flight -= 1
        record.result = result
        record.answered_seq = len(self.client.traffic)
        self._changed.set()
        return result

    def _decide(
        self, edit: types.WorkspaceEdit, policy: ApplyPolicy
    ) -> types.ApplyWorkspaceEditResult:
        if policy.error is not None:
            raise EditorRefusal(policy.error)
        if not policy.accept:
            return types.ApplyWorkspaceEditResult(applied=False)
        documents = {uri: OpenDocument(b.text, b.version) for uri, b in self.buffers.items()}
        stager = Stager(documents, self.encoding, policy.keep, refuse_stale=self.kind == "vscode")
        try:
            staged = stager.stage(edit)
        except EditFailed as exc:
            reason = str(exc) or None
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason=reason)
        self._commit(staged, save=policy.save, sync=policy.sync)
        return types.ApplyWorkspaceEditResult(applied=True)

    def _commit(self, staged: list[Staged], *, save: bool, sync: bool) -> None:
        loop = asyncio.get_running_loop()

        def notify(callback: Callable[..., None], *args: Any) -> None:
            if sync:
                loop.call_later(CHANGE_DELAY, callback, *args)
            else:
                self.unsynced.append((callback, args))

        for target in staged:
            if target.created:
                target.path.parent.mkdir(parents=True, exist_ok=True)
                target.path.write_text("", encoding="utf-8")
            buffer = self.buffers.get(target.uri)
            if buffer is None:
                # Editing a file that is not open opens it (unsaved), as VS Code does.
                buffer = Buffer(target.uri, target.path, target.text, 1)
                self.buffers[target.uri] = buffer
                notify(self._did_open, buffer.uri, buffer.text)
            elif target.text != buffer.text:
                buffer.text = target.text
                buffer.version += 1
                edits = list(target.edits)
                notify(self._did_change, buffer.uri, buffer.version, edits)
            if save:
                target.path.write_text(target.text, encoding="utf-8")

    def sync(self) -> None:
        """Send the document notifications held back by `ApplyPolicy(sync=False)`."""
        pending, self.unsynced = self.unsynced, []
        for callback, args in pending:
            callback(*args)

    def _did_open(self, uri: str, text: str) -> None:
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text
                )
            )
        )

    # --- window/showMessageRequest ----------------------------------------------------------

    async def _answer_message(
        self, params: types.ShowMessageRequestParams
    ) -> types.MessageActionItem | None:
        self.message_requests.append(params)
        self._changed.set()
        answer = self.message_answers.popleft() if self.message_answers else None
        answer = answer or self.default_message_answer
        if answer == "never":
            await self._closing.wait()  # the server's $/cancelRequest cancels this wait
            return None
        if answer == "error":
            raise EditorRefusal("the message could not be shown")
        for action in params.actions or ():
            if action.title == answer:
                return action
        raise AssertionError(f"no action {answer!r} in {params.actions}")

    # --- commands ---------------------------------------------------------------------------

    def start_fix(
        self,
        rel: str,
        *,
        range_: types.Range | None = None,
        instruction: str | None = None,
        diagnostics: Sequence[types.Diagnostic] = (),
    ) -> FixRequest:
        argument: dict[str, Any] = {"uri": self.uri(rel)}
        if range_ is not None:
            argument["range"] = _json(range_)
        if instruction is not None:
            argument["instruction"] = instruction
        if diagnostics:
            argument["diagnostics"] = _json(list(diagnostics))
        return self.start_command("rune.fixThis", argument)

    def start_command(self, command: str, *arguments: Any) -> FixRequest:
        msg_id = f"cmd-{next(self._ids)}"
        params = types.ExecuteCommandParams(command=command, arguments=list(arguments))
        future = self.client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND, params, msg_id=msg_id
        )
        return FixRequest(msg_id, asyncio.ensure_future(future))

    async def fix(self, rel: str, **kwargs: Any) -> WireResult:
        return await self.start_fix(rel, **kwargs).result()

    async def command(self, command: str, *arguments: Any, within: float = WAIT) -> Any:
        request = self.start_command(command, *arguments)
        return await asyncio.wait_for(asyncio.shield(request.task), within)

    async def command_error(self, command: str, *arguments: Any) -> str:
        """The error message of a command that must fail."""
        try:
            await self.command(command, *arguments)
        except Exception as exc:
            return str(exc)
        raise AssertionError(f"{command} did not fail")

    async def code_actions(
        self,
        uri: str,
        range_: types.Range,
        diagnostics: Sequence[types.Diagnostic] = (),
        only: Sequence[str] | None = None,
    ) -> list[types.CodeAction]:
        params = types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=range_,
            context=types.CodeActionContext(diagnostics=list(diagnostics), only=only),
        )
        actions = await asyncio.wait_for(self.client.text_document_code_action_async(params), WAIT)
        return [a for a in actions or () if isinstance(a, types.CodeAction)]

    def cancel_request(self, request: FixRequest) -> None:
        self.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=request.msg_id))

    def cancel_progress(self, token: types.ProgressToken) -> None:
        self.client.window_work_done_progress_cancel(
            types.WorkDoneProgressCancelParams(token=token)
        )

    # --- review mode B ----------------------------------------------------------------------

    def rune_diagnostics(self, uri: str) -> list[types.Diagnostic]:
        return [d for d in self.client.diagnostics.get(uri, ()) if d.source == "rune"]

    async def pending_review(self, uri: str) -> types.Diagnostic:
        """The first pending-edit diagnostic on `uri`, once the server published one."""
        found = await self.wait_for(
            lambda: self.rune_diagnostics(uri), f"a rune diagnostic on {uri}"
        )
        return found[0]

    async def review(self, uri: str, diagnostic: types.Diagnostic, title: str) -> Any:
        """Run the code action `title` (Accept edit / Reject edit / Show diff) on a pending edit."""
        actions = await self.code_actions(uri, diagnostic.range, [diagnostic])
        for action in actions:
            if action.title == title and action.command is not None:
                return await self.command(action.command.command, *(action.command.arguments or ()))
        raise AssertionError(f"no code action {title!r} among {[a.title for a in actions]}")

    # --- waiting and records ----------------------------------------------------------------

    async def wait_for(self, predicate: Callable[[], T], what: str, within: float = WAIT) -> T:
        """Wait (bounded) until `predicate()` is truthy, re-checking on every message."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out after {within:g} s waiting for {what}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)

    async def run_token(self) -> str:
        """The progress token of the first run (`rune/<runId>`), once the server created it."""
        reports = self.client.progress_reports
        token = await self.wait_for(lambda: next(iter(reports), None), "a run's progress")
        return str(token)

    def progress_messages(self, token: types.ProgressToken) -> list[str]:
        return [
            report.message
            for report in self.client.progress_reports.get(token, [])
            if isinstance(report, types.WorkDoneProgressReport) and report.message
        ]

    def progress_ended(self, token: types.ProgressToken) -> bool:
        reports = self.client.progress_reports.get(token, [])
        return any(isinstance(report, types.WorkDoneProgressEnd) for report in reports)

    def logged(self, fragment: str) -> bool:
        """Whether a `window/logMessage` so far contains `fragment`."""
        return any(fragment in m.message for m in self.client.log_messages)

    def shown_messages(self) -> list[str]:
        return [m.message for m in self.client.messages]

    def received(self, method: str) -> list[Any]:
        """Params of every request/notification of `method` the server sent, in order."""
        return [t.params for t in self.client.traffic if t.direction == "in" and t.method == method]


def _json(value: object) -> Any:
    from lsprotocol.converters import get_converter

    return get_converter().unstructure(value)


__all__ = [
    "ApplyPolicy",
    "Buffer",
    "FakeEditor",
    "FixRequest",
    "Kind",
    "Typing",
]
