"""A scripted model and a fake tool executor: the loop's tests drive it with these alone."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from rune_lsp.loop.messages import Message, ModelCapabilities, ModelTurn, RawToolCall, ToolSpec
from rune_lsp.loop.resample import RESAMPLE_TEMPERATURES
from rune_lsp.loop.state import (
    Approve,
    PreparedChange,
    PreparedCommand,
    PreparedEdit,
    Reject,
    RunState,
    ToolOutcome,
)

# --- tools ----------------------------------------------------------------------------------


class ReadFileArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    start_line: int | None = None
    end_line: int | None = None


class SearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pattern: str


class EditFileArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    old_text: str
    new_text: str


class RunCommandArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    command: str


@dataclass(frozen=True)
class FakeTool:
    spec: ToolSpec
    arguments_model: type[BaseModel]


def fake_tool(name: str, model: type[BaseModel], *, mutating: bool, description: str) -> FakeTool:
    spec = ToolSpec(
        name=name,
        description=description,
        parameters=model.model_json_schema(),
        mutating=mutating,
    )
    return FakeTool(spec=spec, arguments_model=model)


DEFAULT_TOOLS = (
    fake_tool("read_file", ReadFileArgs, mutating=False, description="Read a file."),
    fake_tool("search", SearchArgs, mutating=False, description="Search the workspace."),
    fake_tool("edit_file", EditFileArgs, mutating=True, description="Replace exact text."),
    fake_tool("run_command", RunCommandArgs, mutating=True, description="Run a command."),
)
TOOL_NAMES = tuple(tool.spec.name for tool in DEFAULT_TOOLS)
WORKSPACE = "/ws"

Reader = Callable[[str, BaseModel], ToolOutcome]


def echo_reader(name: str, arguments: BaseModel) -> ToolOutcome:
    return ToolOutcome(status="ok", content=f"{name} -> {arguments.model_dump_json()}")


def target(change: PreparedChange) -> str:
    return change.path if isinstance(change, PreparedEdit) else change.command


class FakeExecutor:
    """Read-only tools answer through `reader`; mutating ones become prepared changes.

    `refuse_at_prepare` maps a target (workspace path or command) to the outcome prepare
    returns; `forbidden` and `stale` are targets that apply and recheck refuse, so a test can
    change the rules between approval and sending. `rebased` maps an edit id to the change
    `recheck` hands back instead of the proposal (its file changed only elsewhere).
    """

    def __init__(
        self,
        tools: Sequence[FakeTool] = DEFAULT_TOOLS,
        *,
        reader: Reader = echo_reader,
    ) -> None:
        self.tools = list(tools)
        self.reader = reader
        self.executed: list[tuple[str, dict[str, Any]]] = []
        self.prepared: list[PreparedChange] = []
        self.applied: list[PreparedChange] = []
        self.rechecked: list[PreparedChange] = []
        self.refuse_at_prepare: dict[str, ToolOutcome] = {}
        self.forbidden: set[str] = set()
        self.stale: set[str] = set()
        self.rebased: dict[str, PreparedChange] = {}
        self.raise_on_execute: set[str] = set()
        self.raise_on_apply = False
        self.hang_on_execute = False
        self.execute_started = asyncio.Event()
        # Workspace-relative path -> text, for `current_text` (code blocks in answers).
        self.files: dict[str, str] = {}

    def definitions(self) -> Sequence[FakeTool]:
        return self.tools

    async def execute(self, name: str, arguments: BaseModel) -> ToolOutcome:
        self.executed.append((name, arguments.model_dump(exclude_none=True)))
        self.execute_started.set()
        if self.hang_on_execute:
            await asyncio.Event().wait()
        if name in self.raise_on_execute:
            raise RuntimeError(f"{name} exploded")
        return self.reader(name, arguments)

    async def prepare(
        self, name: str, arguments: BaseModel, *, call_id: str, edit_id: str, reason: str
    ) -> PreparedChange | ToolOutcome:
        if isinstance(arguments, RunCommandArgs):
            change: PreparedChange = PreparedCommand(
                edit_id=edit_id, call_id=call_id, command=arguments.command, cwd=WORKSPACE
            )
        else:
            assert isinstance(arguments, EditFileArgs)
            change = PreparedEdit(
                edit_id=edit_id,
                call_id=call_id,
                tool="edit_file",
                path=f"{WORKSPACE}/{arguments.path}",
                old_text=arguments.old_text,
                new_text=arguments.new_text,
                reason=reason,
            )
        refusal = self.refuse_at_prepare.get(target(change))
        if refusal is not None:
            return refusal
        self.prepared.append(change)
        return change

    async def recheck(self, change: PreparedChange) -> PreparedChange | ToolOutcome:
        self.rechecked.append(change)
        refusal = self._refusal(change)
        if refusal is not None:
            return refusal
        return self.rebased.get(change.edit_id, change)

    async def apply(self, change: PreparedChange) -> ToolOutcome:
        if self.raise_on_apply:
            raise OSError("disk on fire")
        refusal = self._refusal(change)
        if refusal is not None:
            return refusal
        self.applied.append(change)
        return ToolOutcome(
            status="ok", content=f"Applied to {target(change)}.", edit_status="applied"
        )

    async def current_text(self, path: str) -> str | None:
        return self.files.get(path)

    def _refusal(self, change: PreparedChange) -> ToolOutcome | None:
        where = target(change)
        if where in self.forbidden:
            return ToolOutcome(
                status="denied",
                content=f"Access denied: {where} is outside allowed write directories.",
            )
        if where in self.stale:
            return ToolOutcome(
                status="failed", content=f"{where} changed since the proposal.", edit_status="stale"
            )
        return None


# --- decisions ------------------------------------------------------------------------------


def approve_all(state: RunState) -> None:
    for change in state.turn.pending:
        state.turn.decide(change.edit_id, Approve())


def reject_all(state: RunState, reason: str = "") -> None:
    for change in state.turn.pending:
        state.turn.decide(change.edit_id, Reject(reason=reason))


# --- model ----------------------------------------------------------------------------------


class Hang:
    """A script step on which `chat` waits until its task is cancelled."""


ScriptStep = ModelTurn | BaseException | Hang


@dataclass
class ChatCall:
    messages: list[Message]
    tools: list[ToolSpec]
    temperature: float | None = None


@dataclass
class ScriptedModel:
    """Answers `chat` with the next scripted step; `final` once the script is used up."""

    script: list[ScriptStep] = field(default_factory=list)
    native_tools: bool = True
    context_length: int | None = None
    final: ModelTurn = field(default_factory=lambda: ModelTurn(text="Done."))
    calls: list[ChatCall] = field(default_factory=list)
    entered_hang: asyncio.Event = field(default_factory=asyncio.Event)
    adaptive_protocol: bool = False
    prefers_text: bool = False  # set when the loop reported the text protocol worked better

    @classmethod
    def of(cls, *steps: ScriptStep, **options: Any) -> ScriptedModel:
        return cls(script=list(steps), **options)

    async def capabilities(self) -> ModelCapabilities:
        return ModelCapabilities(
            native_tools=self.native_tools,
            context_length=self.context_length,
            adaptive_protocol=self.adaptive_protocol,
        )

    def prefer_text_protocol(self) -> None:
        self.prefers_text = True

    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        on_delta: Callable[[str], None] | None = None,
        temperature: float | None = None,
    ) -> ModelTurn:
        self.calls.append(
            ChatCall(messages=list(messages), tools=list(tools), temperature=temperature)
        )
        step = self.script.pop(0) if self.script else self.final
        if isinstance(step, Hang):
            self.entered_hang.set()
            await asyncio.Event().wait()
            raise AssertionError("unreachable: the hang only ends by cancellation")
        if isinstance(step, BaseException):
            raise step
        if on_delta is not None and step.text:
            on_delta(step.text)
        return step


def call(name: Any, arguments: Any = None, id: str | None = None) -> RawToolCall:
    return RawToolCall(id=id, name=name, arguments=arguments)


def turn(*calls: RawToolCall, text: str = "") -> ModelTurn:
    return ModelTurn(text=text, tool_calls=calls)


def read(path: str, id: str | None = None) -> RawToolCall:
    return call("read_file", {"path": path}, id)


def edit(path: str, old: str = "a", new: str = "b", id: str | None = None) -> RawToolCall:
    return call("edit_file", {"path": path, "old_text": old, "new_text": new}, id)


#: Requests a fresh run makes while its first answer is the code as it is, before anything is
#: said about it: the first, then the same request again (loop/resample.py).
ASKED = 1 + len(RESAMPLE_TEMPERATURES)


def answer(text: str = "Done.") -> ModelTurn:
    return ModelTurn(text=text)


# --- assertions -----------------------------------------------------------------------------


def tool_messages_after(messages: Sequence[Message], index: int) -> list[Message]:
    following = []
    for message in messages[index + 1 :]:
        if message.role != "tool":
            break
        following.append(message)
    return following


def assert_paired(messages: Sequence[Message]) -> None:
    """Every assistant call has exactly one result right after it, in call order."""
    seen_results = 0
    calls = 0
    for index, message in enumerate(messages):
        if message.role == "tool":
            seen_results += 1
        if message.role != "assistant" or not message.tool_calls:
            continue
        calls += len(message.tool_calls)
        results = tool_messages_after(messages, index)
        assert [r.tool_call_id for r in results] == [c.id for c in message.tool_calls]
        assert [r.name for r in results] == [c.name for c in message.tool_calls]
    assert seen_results == calls
    ids = [c.id for m in messages for c in m.tool_calls]
    assert len(ids) == len(set(ids))
