"""Two edits to one file in one turn: the second is re-based onto the first, never overwritten."""

from __future__ import annotations

from pathlib import Path

from rune_lsp.loop.state import PreparedChange, PreparedCommand, PreparedEdit, ToolOutcome
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.rebase import rebase_edit
from rune_lsp.tools.sandbox import Sandbox
from rune_lsp.tools.schemas import EditFileArgs, RunCommandArgs, WriteFileArgs
from tests.tools.workspace import write

SOURCE = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
BOTH = "def a():\n    return 10\n\n\ndef b():\n    return 20\n"


async def _edit(tools: WorkspaceTools, number: int, old: str, new: str) -> PreparedEdit:
    change = await tools.prepare(
        "edit_file",
        EditFileArgs(path="app.py", old_text=old, new_text=new),
        call_id=f"c{number}",
        edit_id=f"e{number}",
        reason="",
    )
    assert isinstance(change, PreparedEdit), change
    return change


async def test_second_edit_of_one_turn_is_applied_too(tools: WorkspaceTools, ws: Path) -> None:
    path = write(ws, "app.py", SOURCE)
    first = await _edit(tools, 1, "return 1", "return 10")
    second = await _edit(tools, 2, "return 2", "return 20")
    assert (await tools.apply(first)).edit_status == "applied"
    outcome = await tools.apply(second)
    assert outcome == ToolOutcome(
        status="ok",
        content="Updated app.py: changed line 6 (previously 6).",
        edit_status="applied",
    )
    assert path.read_text() == BOTH


async def test_edits_applied_in_reverse_order_land_too(tools: WorkspaceTools, ws: Path) -> None:
    path = write(ws, "app.py", SOURCE)
    first = await _edit(tools, 1, "def a():\n", "import os\n\n\ndef a():\n")
    second = await _edit(tools, 2, "return 2", "return 20")
    assert (await tools.apply(second)).edit_status == "applied"
    assert (await tools.apply(first)).content == "Updated app.py: inserted lines 1-3."
    assert path.read_text() == "import os\n\n\n" + SOURCE.replace("return 2", "return 20")


async def test_overlapping_second_edit_stays_stale(tools: WorkspaceTools, ws: Path) -> None:
    path = write(ws, "app.py", SOURCE)
    first = await _edit(tools, 1, "return 1", "return 10")
    second = await _edit(tools, 2, "def a():\n    return 1", "def a():\n    return 11")
    await tools.apply(first)
    outcome = await tools.apply(second)
    assert outcome.status == "failed"
    assert outcome.edit_status == "stale"
    assert outcome.content.startswith("app.py changed since the edit was proposed")
    assert path.read_text() == SOURCE.replace("return 1", "return 10")
    assert isinstance(await tools.recheck(second), ToolOutcome)


async def test_recheck_returns_the_edit_rebased_on_the_editor_buffer(
    tools: WorkspaceTools, ws: Path, buffers: dict[Path, str]
) -> None:
    path = write(ws, "app.py", SOURCE)
    buffers[path] = SOURCE.replace("def b", "def b_unsaved")
    first = await _edit(tools, 1, "return 1", "return 10")
    second = await _edit(tools, 2, "return 2", "return 20")
    assert first.old_text == buffers[path]
    buffers[path] = first.new_text  # the editor applied the first edit; nothing is saved
    rebased = await tools.recheck(second)
    assert isinstance(rebased, PreparedEdit)
    assert rebased.old_text == buffers[path]
    assert rebased.new_text == BOTH.replace("def b", "def b_unsaved")
    assert (rebased.edit_id, rebased.call_id, rebased.tool, rebased.path) == (
        "e2",
        "c2",
        "edit_file",
        second.path,
    )
    assert await tools.recheck(rebased) is rebased  # it fits the buffer as it is
    assert path.read_text() == SOURCE  # re-basing writes nothing


async def test_an_unchanged_target_is_sent_as_proposed(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "app.py", SOURCE)
    edit = await _edit(tools, 1, "return 1", "return 10")
    assert await tools.recheck(edit) is edit
    command = await tools.prepare(
        "run_command", RunCommandArgs(command="true"), call_id="c2", edit_id="e2", reason=""
    )
    assert isinstance(command, PreparedCommand)
    assert await tools.recheck(command) is command


async def test_recheck_still_denies_a_target_the_rules_now_forbid(
    tools: WorkspaceTools, ws: Path
) -> None:
    path = write(ws, "app.py", SOURCE)
    (ws / "src").mkdir()
    first = await _edit(tools, 1, "return 1", "return 10")
    second = await _edit(tools, 2, "return 2", "return 20")
    await tools.apply(first)
    tools.sandbox = Sandbox.for_workspace([ws], write_dirs=[ws / "src"])
    refusal = await tools.recheck(second)
    assert isinstance(refusal, ToolOutcome) and refusal.status == "denied"
    assert (await tools.apply(second)).status == "denied"
    assert path.read_text() == first.new_text


async def test_a_whole_file_write_is_never_merged(tools: WorkspaceTools, ws: Path) -> None:
    path = write(ws, "app.py", SOURCE)
    first = await _edit(tools, 1, "return 1", "return 10")
    whole: PreparedChange | ToolOutcome = await tools.prepare(
        "write_file",
        WriteFileArgs(path="app.py", content=SOURCE.replace("return 2", "return 20")),
        call_id="c2",
        edit_id="e2",
        reason="",
    )
    assert isinstance(whole, PreparedEdit)
    await tools.apply(first)
    assert (await tools.apply(whole)).edit_status == "stale"
    assert path.read_text() == first.new_text


def test_rebase_edit_leaves_new_files_alone() -> None:
    created = PreparedEdit(
        edit_id="e1", call_id="c1", tool="edit_file", path="/ws/n.py", old_text=None, new_text="x"
    )
    assert rebase_edit(created, "y\n") is None
