"""`WorkspaceTools`: the loop's ToolExecutor over one workspace.

Read-only tools run at once. A `read_file` of a file up to `INLINE_READ_BYTES` runs right on
the event loop (a thread hop would cost more than the read); anything that may take long (a
search, a directory listing, a large file) runs in a worker thread over a snapshot of the open
buffers, so the editor is never kept waiting.

Mutating tools are only prepared; `apply` runs after the user's approval and re-validates
first: the sandbox may have been replaced (`tools.sandbox = ...`) and the document may have
changed since the proposal. An edit whose file changed only in other lines is re-based onto the
current text; anything closer is stale. Nothing is ever blindly overwritten.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import threading
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ValidationError

from rune_lsp.loop.context_budget import DEFAULT_OUTPUT_CAP
from rune_lsp.loop.state import PreparedChange, PreparedCommand, PreparedEdit, ToolOutcome
from rune_lsp.loop.statuses import REFUSED_AT_RECHECK, EditStatus
from rune_lsp.loop.stop import describe
from rune_lsp.store.scrub import hidden_when_shown
from rune_lsp.text_clip import shorten
from rune_lsp.tools.catalog import MUTATING, TOOLS, TOOLS_BY_NAME, Tool
from rune_lsp.tools.changes import describe_change
from rune_lsp.tools.context import ToolContext
from rune_lsp.tools.documents import DocumentSource, SnapshotDocuments
from rune_lsp.tools.edit_file import prepare_edit
from rune_lsp.tools.errors import DocumentError, ToolDenied, ToolError
from rune_lsp.tools.list_dir import list_dir
from rune_lsp.tools.read_file import read_file_at
from rune_lsp.tools.rebase import rebase_edit
from rune_lsp.tools.run_command import describe_result, prepare_command, run_shell
from rune_lsp.tools.sandbox import Sandbox, validate_write_path
from rune_lsp.tools.schemas import (
    EditFileArgs,
    ListDirArgs,
    ReadFileArgs,
    RunCommandArgs,
    SearchArgs,
    WriteFileArgs,
)
from rune_lsp.tools.search import SEARCH_TIMEOUT, search
from rune_lsp.tools.write_file import prepare_write
from rune_lsp.tools.writer import ChangeWriter, DiskWriter

MIN_TAIL_BYTES = 1024
#: Reads up to this size (bytes on disk, characters in a buffer) run on the event loop: well
#: under a millisecond of work.
INLINE_READ_BYTES = 256 * 1024


class WorkspaceTools:
    def __init__(
        self,
        root: Path,
        sandbox: Sandbox,
        documents: DocumentSource,
        *,
        writer: ChangeWriter | None = None,
        command_timeout: float = 120,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        use_ripgrep: bool = True,
        search_timeout: float = SEARCH_TIMEOUT,
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.sandbox = sandbox  # replaceable: apply re-validates against the current one
        self.documents = documents
        self.writer: ChangeWriter = writer if writer is not None else DiskWriter()
        self.command_timeout = command_timeout
        self.output_cap = output_cap
        self.use_ripgrep = use_ripgrep
        self.search_timeout = search_timeout

    def definitions(self) -> Sequence[Tool]:
        return TOOLS

    def _context(self, documents: DocumentSource | None = None) -> ToolContext:
        return ToolContext(
            root=self.root,
            sandbox=self.sandbox,
            documents=documents if documents is not None else self.documents,
            output_cap=self.output_cap,
        )

    def _threaded(self) -> ToolContext:
        """A context for a worker thread: the open buffers are copied here, on the event loop,
        so the thread never touches live ones."""
        return self._context(SnapshotDocuments.of(self.documents))

    def show(self, path: Path) -> str:
        """How the tools name `path`: relative to the root when inside it."""
        return self._context().show(path)

    def task_text(self, path: Path) -> str | None:
        """The text of the file a run is asked to fix, under the rules of every tool read
        (`read_file`'s own check): AccessDenied when they refuse it, None when it is missing,
        ToolError when it is not usable text."""
        ctx = self._context()
        return ctx.read_document(ctx.read_path(str(path)))

    # --- read-only tools ------------------------------------------------------------------------

    async def execute(self, name: str, arguments: BaseModel) -> ToolOutcome:
        if name in MUTATING:
            return _failed(f"{name} changes the workspace; it is proposed for review, not run.")
        try:
            content = await self._read_only(_arguments(name, arguments))
        except (ToolError, OSError) as exc:
            return _refusal(name, exc)
        return ToolOutcome(status="ok", content=_capped(content, self.output_cap))

    async def _read_only(self, args: BaseModel) -> str:
        if isinstance(args, ReadFileArgs):
            ctx = self._context()
            path = ctx.read_path(args.path)
            if _is_small(ctx.documents, path):
                return read_file_at(ctx, path, args)
            return await asyncio.to_thread(read_file_at, self._threaded(), path, args)
        if isinstance(args, ListDirArgs):
            return await asyncio.to_thread(list_dir, self._threaded(), args)
        if isinstance(args, SearchArgs):
            ripgrep = shutil.which("rg") if self.use_ripgrep else None
            stop = threading.Event()
            try:
                return await asyncio.to_thread(
                    search,
                    self._threaded(),
                    args,
                    ripgrep=ripgrep,
                    timeout=self.search_timeout,
                    stop=stop,
                )
            finally:
                stop.set()  # a cancelled run: its search child is killed within 0.1 s
        raise ToolError(f"{type(args).__name__} is not the arguments of a read-only tool.")

    async def current_text(self, path: str) -> str | None:
        """The file's text as the tools see it (buffer first), None when it cannot be read:
        the loop places a code block from the model's answer in it."""
        try:
            ctx = self._context()
            return ctx.read_document(ctx.read_path(path))
        except (ToolError, OSError):
            return None

    # --- mutating tools -------------------------------------------------------------------------

    async def prepare(
        self, name: str, arguments: BaseModel, *, call_id: str, edit_id: str, reason: str
    ) -> PreparedChange | ToolOutcome:
        if name in TOOLS_BY_NAME and name not in MUTATING:
            return _failed(f"{name} is read-only; it runs directly and needs no review.")
        try:
            args = _arguments(name, arguments)
            ctx = self._context()
            ids = {"call_id": call_id, "edit_id": edit_id, "reason": reason}
            prepared: PreparedChange | ToolOutcome
            if isinstance(args, EditFileArgs):
                prepared = prepare_edit(ctx, args, **ids)
            elif isinstance(args, WriteFileArgs):
                prepared = prepare_write(ctx, args, **ids)
            elif isinstance(args, RunCommandArgs):
                prepared = prepare_command(ctx, args, **ids)
            else:
                raise ToolError(f"{name} cannot be prepared.")
            if not isinstance(prepared, ToolOutcome):
                _refuse_hidden_secrets(prepared, ctx)
            return prepared
        except (ToolError, OSError) as exc:
            return _refusal(name, exc)

    async def recheck(self, change: PreparedChange) -> PreparedChange | ToolOutcome:
        """The change to send now, or the refusal (denied or stale; failed if the re-check
        itself failed: the server calls this right before an applyEdit, and an unexpected
        error must refuse the edit, not end the review).

        That is `change` itself while its target still holds `old_text`; an `edit_file` whose
        file changed only in other lines comes back re-based onto the current text (same ids,
        `old_text` the current text, `new_text` both changes merged). The editor's edit must be
        built from the change returned, not from the proposal.
        """
        try:
            checked = self._validated(change)
        except Exception as exc:
            return ToolOutcome(status="failed", content=f"Error: re-check failed: {describe(exc)}")
        return checked if isinstance(checked, ToolOutcome) else checked[1]

    def _validated(self, change: PreparedChange) -> tuple[Path, PreparedChange] | ToolOutcome:
        """The validated target (file, or the command's directory) and the change to apply
        there, or the refusal."""
        raw = change.path if isinstance(change, PreparedEdit) else change.cwd
        try:
            target = validate_write_path(raw, self.sandbox, base=self.root)
        except ToolDenied as exc:
            refused = REFUSED_AT_RECHECK
            return ToolOutcome(status=refused.tool, content=str(exc), edit_status=refused.edit)
        if isinstance(change, PreparedCommand):
            return target, change
        shown = self._context().show(target)
        if str(target) != change.path:
            return _stale(f"{shown} now resolves to a different file than when the edit was made")
        try:
            current = self.documents.read_text(target)
        except DocumentError as exc:
            return _stale(f"{shown} can no longer be read as text ({exc})")
        if current == change.old_text:
            return target, change
        if change.old_text is None:
            return _stale(f"{shown} was created since the edit was proposed")
        if current is None:
            return _stale(f"{shown} was deleted since the edit was proposed")
        rebased = rebase_edit(change, current)
        if rebased is not None:
            return target, rebased
        return _stale(f"{shown} changed since the edit was proposed")

    async def apply(self, change: PreparedChange) -> ToolOutcome:
        checked = self._validated(change)  # the same re-check as `recheck`, right before writing
        if isinstance(checked, ToolOutcome):
            return checked
        target, change = checked
        if isinstance(change, PreparedCommand):
            return await self._run(change, target)
        shown = self._context().show(target)
        try:
            await self.writer.write(target, change.new_text)
        except (OSError, UnicodeError) as exc:
            return _failed(f"Writing {shown} failed: {exc}. Nothing was changed.", "rejected")
        return ToolOutcome(
            status="ok",
            content=describe_change(shown, change.old_text, change.new_text),
            edit_status="applied",
        )

    async def _run(self, change: PreparedCommand, cwd: Path) -> ToolOutcome:
        try:
            result = await run_shell(
                change.command,
                cwd=cwd,
                timeout=self.command_timeout,
                tail_bytes=max(MIN_TAIL_BYTES, self.output_cap // 2),
            )
        except OSError as exc:
            return _failed(f"Could not start the command: {exc}.", "rejected")
        outcome = describe_result(change.command, result, timeout=self.command_timeout)
        return outcome.model_copy(update={"content": _capped(outcome.content, self.output_cap)})


def _arguments(name: str, arguments: BaseModel) -> BaseModel:
    """The tool's own argument model (re-validated if the caller used another class)."""
    tool = TOOLS_BY_NAME.get(name)
    if tool is None:
        known = ", ".join(TOOLS_BY_NAME)
        raise ToolError(f"Unknown tool {name!r}. Available tools: {known}.")
    model = tool.arguments_model
    if isinstance(arguments, model):
        return arguments
    try:
        return model.model_validate(arguments.model_dump())
    except ValidationError as exc:
        raise ToolError(f"Invalid arguments for {name}: {exc}") from exc


def _is_small(documents: DocumentSource, path: Path) -> bool:
    """An open buffer of at most INLINE_READ_BYTES characters, or a regular file of at most
    that many bytes. Anything else (missing, a directory, a pipe or device, which could block
    an open) goes to the worker thread, where a slow answer cannot stall the editor."""
    if documents.is_open(path):
        try:
            text = documents.read_text(path)
        except DocumentError:
            return False  # the read itself explains, in its own words
        return text is not None and len(text) <= INLINE_READ_BYTES
    try:
        found = os.stat(path)
    except OSError:
        return False
    return stat.S_ISREG(found.st_mode) and found.st_size <= INLINE_READ_BYTES


def _refuse_hidden_secrets(change: PreparedChange, ctx: ToolContext) -> None:
    """A change whose new text holds a secret that its review would show masked (the
    configured API key, a URL's password, a token's shape) is refused: the user would approve
    `***` and the key would land, or run; so is a new file named after one (its name is masked
    too). Credentials the file holds already may stay."""
    if isinstance(change, PreparedCommand):
        if hidden_when_shown(change.command):
            raise ToolDenied(
                "Refused: this command holds a credential (the configured API key, a URL's "
                "password or a token), which the user is shown masked and could not check. "
                "Read credentials from the environment instead of writing them out."
            )
        return
    added = hidden_when_shown(change.new_text) - hidden_when_shown(change.old_text or "")
    if added or (change.old_text is None and hidden_when_shown(change.path)):
        raise ToolDenied(
            f"Refused: this change would write a credential into {ctx.show(Path(change.path))} "
            "(the configured API key, a URL's password or a token), which the user is shown "
            "masked and could not check. Leave credentials out of files; read them from the "
            "environment."
        )


def _refusal(name: str, exc: ToolError | OSError) -> ToolOutcome:
    """The outcome of a call that raised: denied for the rules, failed for anything else."""
    if isinstance(exc, ToolDenied):
        return ToolOutcome(status="denied", content=str(exc))
    if isinstance(exc, ToolError):
        return _failed(str(exc))
    return _failed(f"{name} failed: {exc.strerror or exc}.")


def _failed(content: str, edit_status: EditStatus | None = None) -> ToolOutcome:
    return ToolOutcome(status="failed", content=content, edit_status=edit_status)


def _stale(what: str) -> ToolOutcome:
    return ToolOutcome(
        status="failed",
        content=f"{what}; read it again and propose the edit on the current text.",
        edit_status="stale",
    )


def _capped(content: str, cap: int) -> str:
    """At most `cap` characters, the note included: the loop caps at the same size again, and
    a longer answer would lose this note to that second cut."""
    return shorten(content, cap, marker=f"\n[output cut at {cap} characters]")
