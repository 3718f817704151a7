from __future__ import annotations

from pathlib import Path

from rune_lsp.loop.state import PreparedEdit, ToolOutcome
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.schemas import WriteFileArgs
from tests.tools.workspace import write


async def _prepare(tools: WorkspaceTools, path: str, content: str) -> PreparedEdit | ToolOutcome:
    result = await tools.prepare(
        "write_file", WriteFileArgs(path=path, content=content), call_id="c", edit_id="e", reason=""
    )
    assert isinstance(result, PreparedEdit | ToolOutcome)
    return result


async def test_new_file_has_no_old_text_and_is_not_written(tools: WorkspaceTools, ws: Path) -> None:
    edit = await _prepare(tools, "pkg/new.py", "x = 1\n")
    assert isinstance(edit, PreparedEdit)
    assert edit.tool == "write_file"
    assert edit.path == str(ws / "pkg" / "new.py")
    assert edit.old_text is None
    assert edit.new_text == "x = 1\n"
    assert not (ws / "pkg").exists()


async def test_replacing_keeps_the_current_buffer_as_old_text(
    tools: WorkspaceTools, ws: Path, buffers: dict[Path, str]
) -> None:
    path = write(ws, "a.py", "disk\n")
    buffers[path] = "buffer\n"
    edit = await _prepare(tools, "a.py", "new\n")
    assert isinstance(edit, PreparedEdit)
    assert edit.old_text == "buffer\n"


async def test_identical_content_needs_no_review(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "a.py", "same\n")
    outcome = await _prepare(tools, "a.py", "same\n")
    assert outcome == ToolOutcome(
        status="ok", content="a.py already has exactly this content; nothing to change."
    )


async def test_directory_and_file_parent_fail(tools: WorkspaceTools, ws: Path) -> None:
    (ws / "d").mkdir()
    write(ws, "f.txt", "")
    on_dir = await _prepare(tools, "d", "x")
    assert isinstance(on_dir, ToolOutcome)
    assert on_dir.content == "d is a directory; give the path of a file inside it."
    under_file = await _prepare(tools, "f.txt/inner/x.py", "x")
    assert isinstance(under_file, ToolOutcome)
    assert under_file.content == (
        "Cannot create f.txt/inner/x.py: f.txt is a file, not a directory."
    )


async def test_binary_file_is_not_replaced(tools: WorkspaceTools, ws: Path) -> None:
    (ws / "logo.png").write_bytes(b"\x89PNG\0")
    outcome = await _prepare(tools, "logo.png", "text")
    assert isinstance(outcome, ToolOutcome)
    assert outcome.status == "failed"


async def test_git_internals_are_hard_blocked(tools: WorkspaceTools, ws: Path) -> None:
    (ws / ".git").mkdir()
    outcome = await _prepare(tools, ".git/hooks/pre-commit", "rm -rf /")
    assert isinstance(outcome, ToolOutcome)
    assert outcome.status == "denied"
    assert "is inside .git/, which is never writable" in outcome.content
