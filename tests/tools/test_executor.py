"""Apply after approval: re-validation, staleness, writers, and one result per call."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from rune_lsp.loop.context_budget import cap_output
from rune_lsp.loop.ports import ToolExecutor
from rune_lsp.loop.state import PreparedChange, PreparedCommand, PreparedEdit, ToolOutcome
from rune_lsp.tools import executor
from rune_lsp.tools.executor import INLINE_READ_BYTES, WorkspaceTools
from rune_lsp.tools.sandbox import Sandbox
from rune_lsp.tools.schemas import (
    EditFileArgs,
    ListDirArgs,
    ReadFileArgs,
    RunCommandArgs,
    WriteFileArgs,
)
from tests.tools.overlay import OverlayDocuments
from tests.tools.workspace import write


async def _prepare(tools: WorkspaceTools, name: str, args: BaseModel) -> PreparedChange:
    change = await tools.prepare(name, args, call_id="c1", edit_id="e1", reason="")
    assert not isinstance(change, ToolOutcome), change
    return change


def test_satisfies_the_loop_protocol(tools: WorkspaceTools) -> None:
    executor: ToolExecutor = tools
    names = [d.spec.name for d in executor.definitions()]
    assert names == ["read_file", "list_dir", "search", "edit_file", "write_file", "run_command"]
    mutating = {d.spec.name for d in executor.definitions() if d.spec.mutating}
    assert mutating == {"edit_file", "write_file", "run_command"}


async def test_approved_edit_is_written(tools: WorkspaceTools, ws: Path) -> None:
    path = write(ws, "app.py", "a\nb\nc\n")
    edit = await _prepare(
        tools, "edit_file", EditFileArgs(path="app.py", old_text="b", new_text="B")
    )
    assert await tools.recheck(edit) is edit
    outcome = await tools.apply(edit)
    assert outcome == ToolOutcome(
        status="ok",
        content="Updated app.py: changed line 2 (previously 2).",
        edit_status="applied",
    )
    assert path.read_text() == "a\nB\nc\n"


async def test_approved_new_file_creates_parents(tools: WorkspaceTools, ws: Path) -> None:
    edit = await _prepare(tools, "write_file", WriteFileArgs(path="a/b/c.py", content="x\ny\n"))
    outcome = await tools.apply(edit)
    assert outcome.content == "Created a/b/c.py (2 lines)."
    assert (ws / "a" / "b" / "c.py").read_text() == "x\ny\n"


async def test_disk_change_after_prepare_is_stale(tools: WorkspaceTools, ws: Path) -> None:
    path = write(ws, "app.py", "x = 1\n")
    edit = await _prepare(
        tools, "edit_file", EditFileArgs(path="app.py", old_text="1", new_text="2")
    )
    path.write_text("x = 1  # someone else\n")
    outcome = await tools.apply(edit)
    assert outcome.status == "failed"
    assert outcome.edit_status == "stale"
    assert outcome.content == (
        "app.py changed since the edit was proposed; read it again and propose the edit on "
        "the current text."
    )
    assert path.read_text() == "x = 1  # someone else\n"


async def test_buffer_change_after_prepare_is_stale(
    tools: WorkspaceTools, ws: Path, buffers: dict[Path, str]
) -> None:
    path = write(ws, "app.py", "x = 1\n")
    buffers[path] = "x = 1\n"
    edit = await _prepare(
        tools, "edit_file", EditFileArgs(path="app.py", old_text="1", new_text="2")
    )
    buffers[path] = "x = 1\ny = 0\n"
    refusal = await tools.recheck(edit)
    assert isinstance(refusal, ToolOutcome)
    assert refusal.edit_status == "stale"
    assert (await tools.apply(edit)).edit_status == "stale"
    assert path.read_text() == "x = 1\n"


async def test_a_recheck_that_fails_refuses_the_change(tools: WorkspaceTools, ws: Path) -> None:
    """The server sends what `recheck` returns: an unexpected error refuses the edit."""

    class Vanished(OverlayDocuments):
        def read_text(self, path: Path) -> str | None:
            raise RuntimeError("document source vanished")

    write(ws, "app.py", "x = 1\n")
    edit = await _prepare(
        tools, "edit_file", EditFileArgs(path="app.py", old_text="1", new_text="2")
    )
    tools.documents = Vanished({})
    failure = await tools.recheck(edit)
    assert failure == ToolOutcome(
        status="failed", content="Error: re-check failed: RuntimeError: document source vanished"
    )


async def test_new_file_created_meanwhile_is_stale(tools: WorkspaceTools, ws: Path) -> None:
    edit = await _prepare(tools, "write_file", WriteFileArgs(path="n.py", content="mine\n"))
    write(ws, "n.py", "theirs\n")
    outcome = await tools.apply(edit)
    assert outcome.edit_status == "stale"
    assert outcome.content.startswith("n.py was created since the edit was proposed")
    assert (ws / "n.py").read_text() == "theirs\n"


async def test_deleted_file_is_stale(tools: WorkspaceTools, ws: Path) -> None:
    path = write(ws, "app.py", "x\n")
    edit = await _prepare(
        tools, "edit_file", EditFileArgs(path="app.py", old_text="x", new_text="y")
    )
    path.unlink()
    outcome = await tools.apply(edit)
    assert outcome.edit_status == "stale"
    assert not path.exists()


async def test_path_turned_into_an_inside_symlink_is_stale(tools: WorkspaceTools, ws: Path) -> None:
    path = write(ws, "app.py", "x\n")
    other = write(ws, "other.py", "x\n")
    edit = await _prepare(
        tools, "edit_file", EditFileArgs(path="app.py", old_text="x", new_text="y")
    )
    path.unlink()
    path.symlink_to(other)
    outcome = await tools.apply(edit)
    assert outcome.edit_status == "stale"
    assert "resolves to a different file" in outcome.content
    assert other.read_text() == "x\n"


async def test_symlink_escape_after_prepare_is_denied(
    tools: WorkspaceTools, ws: Path, tmp_path: Path
) -> None:
    (ws / "sub").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    edit = await _prepare(tools, "write_file", WriteFileArgs(path="sub/f.py", content="x"))
    (ws / "sub").rmdir()
    (ws / "sub").symlink_to(outside)
    outcome = await tools.apply(edit)
    assert outcome.status == "denied"
    assert not (outside / "f.py").exists()


async def test_sandbox_narrowed_after_prepare_denies_apply(tools: WorkspaceTools, ws: Path) -> None:
    path = write(ws, "app.py", "x\n")
    (ws / "src").mkdir()
    edit = await _prepare(
        tools, "edit_file", EditFileArgs(path="app.py", old_text="x", new_text="y")
    )
    tools.sandbox = Sandbox.for_workspace([ws], write_dirs=[ws / "src"])
    refusal = await tools.recheck(edit)
    assert isinstance(refusal, ToolOutcome)
    assert refusal.status == "denied"
    outcome = await tools.apply(edit)
    assert outcome.status == "denied"
    assert outcome.edit_status == "rejected"
    assert outcome.content == (
        f"Access denied: {ws}/app.py is outside allowed write directories: ['{ws}/src']. "
        "Write inside one of those directories instead."
    )
    assert path.read_text() == "x\n"


async def test_a_forged_change_outside_is_denied_at_apply(tools: WorkspaceTools, ws: Path) -> None:
    forged = PreparedEdit(
        edit_id="e", call_id="c", tool="write_file", path="/etc/x.conf", old_text=None, new_text=""
    )
    assert (await tools.apply(forged)).status == "denied"


class _RecordingWriter:
    def __init__(self) -> None:
        self.writes: list[tuple[Path, str]] = []

    async def write(self, path: Path, text: str) -> None:
        self.writes.append((path, text))


class _FailingWriter:
    async def write(self, path: Path, text: str) -> None:
        raise PermissionError(13, "Permission denied")


async def test_custom_writer_receives_approved_text(ws: Path) -> None:
    writer = _RecordingWriter()
    tools = WorkspaceTools(ws, Sandbox.for_workspace([ws]), OverlayDocuments({}), writer=writer)
    path = write(ws, "a.py", "1\n")
    edit = await _prepare(tools, "edit_file", EditFileArgs(path="a.py", old_text="1", new_text="2"))
    await tools.apply(edit)
    assert writer.writes == [(path, "2\n")]
    assert path.read_text() == "1\n"


async def test_writer_failure_is_a_failed_outcome(ws: Path) -> None:
    tools = WorkspaceTools(
        ws, Sandbox.for_workspace([ws]), OverlayDocuments({}), writer=_FailingWriter()
    )
    write(ws, "a.py", "1\n")
    edit = await _prepare(tools, "edit_file", EditFileArgs(path="a.py", old_text="1", new_text="2"))
    outcome = await tools.apply(edit)
    assert outcome.status == "failed"
    assert "Writing a.py failed" in outcome.content


async def test_command_runs_only_on_apply(tools: WorkspaceTools, ws: Path) -> None:
    change = await _prepare(tools, "run_command", RunCommandArgs(command="touch ran && pwd"))
    assert isinstance(change, PreparedCommand)
    assert change.cwd == str(ws)
    assert not (ws / "ran").exists()
    outcome = await tools.apply(change)
    assert outcome.status == "ok"
    assert outcome.edit_status == "applied"
    assert (ws / "ran").exists()
    assert outcome.content.splitlines()[0] == "$ touch ran && pwd"
    assert str(ws) in outcome.content


async def test_command_denied_when_the_workspace_is_no_longer_writable(
    tools: WorkspaceTools, ws: Path, tmp_path: Path
) -> None:
    change = await _prepare(tools, "run_command", RunCommandArgs(command="touch ran"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    tools.sandbox = Sandbox(read_roots=(elsewhere,), write_roots=(elsewhere,))
    outcome = await tools.apply(change)
    assert outcome.status == "denied"
    assert not (ws / "ran").exists()


async def test_unknown_tool_gets_a_result(tools: WorkspaceTools) -> None:
    outcome = await tools.execute("delete_everything", ListDirArgs())
    assert outcome.status == "failed"
    assert outcome.content.startswith("Unknown tool 'delete_everything'. Available tools:")
    prepared = await tools.prepare(
        "delete_everything", ListDirArgs(), call_id="c", edit_id="e", reason=""
    )
    assert isinstance(prepared, ToolOutcome)
    assert prepared.status == "failed"


async def test_mutating_tools_are_not_executed_directly(tools: WorkspaceTools, ws: Path) -> None:
    outcome = await tools.execute("write_file", WriteFileArgs(path="x.py", content="x"))
    assert outcome.status == "failed"
    assert not (ws / "x.py").exists()
    prepared = await tools.prepare(
        "read_file", ReadFileArgs(path="x.py"), call_id="c", edit_id="e", reason=""
    )
    assert isinstance(prepared, ToolOutcome)
    assert "read-only" in prepared.content


class _LooseReadArgs(BaseModel):
    path: str
    start_line: int | None = None
    colour: str = "red"


async def test_arguments_of_another_model_are_revalidated(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "a.py", "x\n")
    ok = await tools.execute("read_file", ReadFileArgs.model_construct(path="a.py"))
    assert ok.status == "ok"
    bad = await tools.execute("read_file", _LooseReadArgs(path="a.py"))
    assert bad.status == "failed"
    assert "Invalid arguments for read_file" in bad.content
    assert "colour" in bad.content


async def test_final_output_cap(ws: Path) -> None:
    tools = WorkspaceTools(ws, Sandbox.for_workspace([ws]), OverlayDocuments({}), output_cap=300)
    change = await _prepare(tools, "run_command", RunCommandArgs(command="seq 1 2000"))
    outcome = await tools.apply(change)
    assert len(outcome.content) <= 300 + len("\n[output cut at 300 characters]")
    assert outcome.content.endswith("[output cut at 300 characters]")


async def test_the_loop_cap_of_the_same_size_keeps_the_executor_note(ws: Path) -> None:
    tools = WorkspaceTools(ws, Sandbox.for_workspace([ws]), OverlayDocuments({}), output_cap=300)
    change = await _prepare(tools, "run_command", RunCommandArgs(command="seq 1 2000"))
    outcome = await tools.apply(change)
    assert cap_output(outcome.content, 300) == outcome.content


async def test_small_reads_run_inline_and_large_ones_in_a_worker_thread(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hops: list[str] = []
    real_to_thread = executor.asyncio.to_thread

    async def counting(func: Any, *args: Any, **kwargs: Any) -> Any:
        hops.append(type(args[-1]).__name__)
        return await real_to_thread(func, *args, **kwargs)

    monkeypatch.setattr(executor.asyncio, "to_thread", counting)
    big_buffer = "y = 2\n" * (INLINE_READ_BYTES // 6 + 1)
    documents = OverlayDocuments({ws / "open.py": big_buffer})
    tools = WorkspaceTools(ws, Sandbox.for_workspace([ws]), documents)
    write(ws, "small.py", "x = 1\n")
    write(ws, "large.py", "x = 1\n" * (INLINE_READ_BYTES // 6 + 1))

    small = await tools.execute("read_file", ReadFileArgs(path="small.py"))
    assert (small.status, hops) == ("ok", [])
    large = await tools.execute("read_file", ReadFileArgs(path="large.py"))
    opened = await tools.execute("read_file", ReadFileArgs(path="open.py", end_line=1))
    listing = await tools.execute("list_dir", ListDirArgs(path="."))
    assert [large.status, opened.status, listing.status] == ["ok", "ok", "ok"]
    assert hops == ["ReadFileArgs", "ReadFileArgs", "ListDirArgs"]
    # The same answer either way: inline is only where the work runs.
    assert large.content.splitlines()[0].lstrip() == small.content.splitlines()[0].lstrip()
    assert opened.content.startswith("   1 | y = 2")


async def test_a_denied_or_missing_small_read_answers_as_before(ws: Path) -> None:
    tools = WorkspaceTools(ws, Sandbox.for_workspace([ws]), OverlayDocuments({}))
    denied = await tools.execute("read_file", ReadFileArgs(path="/etc/passwd"))
    assert denied.status == "denied" and "allowed read directories" in denied.content
    missing = await tools.execute("read_file", ReadFileArgs(path="nope.py"))
    assert missing.status == "failed" and "nope.py does not exist" in missing.content


async def test_a_fifo_in_the_workspace_is_refused_without_blocking(ws: Path) -> None:
    os.mkfifo(ws / "pipe")  # opening it for reading would wait for a writer for ever
    tools = WorkspaceTools(ws, Sandbox.for_workspace([ws]), OverlayDocuments({}))

    outcome = await asyncio.wait_for(
        tools.execute("read_file", ReadFileArgs(path="pipe")), timeout=10
    )

    assert outcome.status == "failed"
    assert "not a regular file" in outcome.content


async def test_current_text_is_the_buffer_first_and_none_when_unreadable(
    tools: WorkspaceTools, ws: Path, buffers: dict[Path, str], tmp_path: Path
) -> None:
    path = write(ws, "app.py", "on disk\n")
    assert await tools.current_text("app.py") == "on disk\n"
    buffers[path] = "unsaved\n"
    assert await tools.current_text("app.py") == "unsaved\n"
    assert await tools.current_text("missing.py") is None
    outside = tmp_path / "outside.py"
    outside.write_text("secret\n")
    assert await tools.current_text(str(outside)) is None  # the read sandbox holds
    (ws / "blob.bin").write_bytes(b"\0\1")
    assert await tools.current_text("blob.bin") is None
