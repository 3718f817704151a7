"""The two interfaces the loop is driven by: a model and a tool executor.

Providers implement `Model`; `rune_lsp.tools` implements `ToolExecutor`. The loop imports neither
of them, which is what lets its tests run on a scripted model and a fake executor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from pydantic import BaseModel

from rune_lsp.loop.messages import Message, ModelCapabilities, ModelTurn, ToolSpec
from rune_lsp.loop.records import EditRecord
from rune_lsp.loop.state import CheckReport, PreparedChange, ToolOutcome


class ModelError(Exception):
    """A provider failure the user can act on; its text ends the run as `failed`."""


class ToolsUnsupportedError(ModelError):
    """The server refused native `tools`; the loop retries the turn with the text protocol."""


class Model(Protocol):
    async def capabilities(self) -> ModelCapabilities:
        """Cached per model; tells the loop whether to use native tools or the text protocol."""
        ...

    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        on_delta: Callable[[str], None] | None = None,
        temperature: float | None = None,
    ) -> ModelTurn:
        """One model call. `tools` is empty for the text protocol and the final synthesis.
        `temperature`: this call's sampling temperature (a candidate fix's retry samples
        wider, loop/candidates.py); None: the provider's configured one."""
        ...

    def prefer_text_protocol(self) -> None:
        """This model answered in prose when offered native tools and then called a tool
        through the text protocol: start its later runs with the text protocol."""
        ...


class ToolDefinition(Protocol):
    @property
    def spec(self) -> ToolSpec: ...

    @property
    def arguments_model(self) -> type[BaseModel]: ...


class ToolExecutor(Protocol):
    """Runs read-only tools, prepares mutating ones, applies them after approval.

    `prepare` computes the change and writes nothing. `recheck` (called by a front end right
    before it sends an approved edit to an editor) and `apply` validate the sandbox and the
    target again, so an approval given earlier cannot land on a path the rules now forbid or on
    text that changed since the proposal (`stale`).
    """

    def definitions(self) -> Sequence[ToolDefinition]: ...

    async def execute(self, name: str, arguments: BaseModel) -> ToolOutcome: ...

    async def prepare(
        self, name: str, arguments: BaseModel, *, call_id: str, edit_id: str, reason: str
    ) -> PreparedChange | ToolOutcome: ...

    async def recheck(self, change: PreparedChange) -> PreparedChange | ToolOutcome:
        """The change to send now (itself, or an edit re-based onto the document's current
        text when that changed only elsewhere, same ids), or the refusal (denied, stale, or
        failed when the re-check itself failed); never raises."""
        ...

    async def apply(self, change: PreparedChange) -> ToolOutcome: ...

    async def current_text(self, path: str) -> str | None:
        """The current text of a workspace file (the editor's buffer first), or None when it
        cannot be read. The loop reads the run's target with it to place a code block."""
        ...


class Checker(Protocol):
    """The check command, run by the front end (never by the loop) on the loop's request.

    The loop asks before the first model turn and after each turn in which an edit landed,
    never while a change waits for review. `edits` are the run's edit records so far.
    """

    @property
    def command(self) -> str: ...

    async def check(self, edits: Sequence[EditRecord]) -> CheckReport: ...

    async def check_changes(self, changes: Sequence[PreparedChange]) -> CheckReport:
        """The check on the workspace with `changes` (a turn's prepared edits, not yet
        reviewed) applied in a scratch copy: never the user's files or buffers. Used for
        candidate fixes (loop/candidates.py) when the run has `candidates` > 1."""
        ...
