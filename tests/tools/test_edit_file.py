from __future__ import annotations

from pathlib import Path

from rune_lsp.loop.state import PreparedChange, PreparedEdit, ToolOutcome
from rune_lsp.tools.edit_file import find_all
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.schemas import EditFileArgs
from tests.tools.workspace import write


async def _prepare(tools: WorkspaceTools, **kwargs: str) -> PreparedChange | ToolOutcome:
    return await tools.prepare(
        "edit_file", EditFileArgs(**kwargs), call_id="c1", edit_id="e1", reason="fix it"
    )


async def test_unique_match_prepares_whole_texts_and_writes_nothing(
    tools: WorkspaceTools, ws: Path
) -> None:
    path = write(ws, "app.py", "def f():\n    return 1\n")
    edit = await _prepare(tools, path="app.py", old_text="return 1", new_text="return 2")
    assert edit == PreparedEdit(
        edit_id="e1",
        call_id="c1",
        tool="edit_file",
        path=str(path),
        old_text="def f():\n    return 1\n",
        new_text="def f():\n    return 2\n",
        reason="fix it",
    )
    assert path.read_text() == "def f():\n    return 1\n"


async def test_edit_is_computed_on_the_unsaved_buffer(
    tools: WorkspaceTools, ws: Path, buffers: dict[Path, str]
) -> None:
    path = write(ws, "app.py", "value = 1\n")
    buffers[path] = "value = 10\n"
    edit = await _prepare(tools, path="app.py", old_text="value = 10", new_text="value = 11")
    assert isinstance(edit, PreparedEdit)
    assert edit.old_text == "value = 10\n"
    assert edit.new_text == "value = 11\n"


async def test_no_match_shows_the_closest_lines(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "app.py", "import os\n\ndef compute(x):\n    return x * 2\n")
    outcome = await _prepare(
        tools, path="app.py", old_text="def compute(y):\n    return y * 2", new_text="z"
    )
    assert isinstance(outcome, ToolOutcome)
    assert outcome.status == "failed"
    assert outcome.content.splitlines()[:3] == [
        "old_text was not found in app.py. The closest lines are:",
        "   3 | def compute(x):",
        "   4 |     return x * 2",
    ]
    assert "Copy old_text exactly" in outcome.content


async def test_no_similar_lines(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "app.py", "aaaa\n")
    outcome = await _prepare(tools, path="app.py", old_text="zzzzzzzz", new_text="y")
    assert isinstance(outcome, ToolOutcome)
    assert "No similar lines were found" in outcome.content


async def test_several_matches_list_their_lines(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "app.py", "x = 1\ny = 2\nx = 1\n\nx = 1\n")
    outcome = await _prepare(tools, path="app.py", old_text="x = 1", new_text="x = 3")
    assert isinstance(outcome, ToolOutcome)
    assert outcome.status == "failed"
    assert outcome.content.startswith(
        "old_text occurs 3 times in app.py (starting at lines 1, 3, 5)."
    )


def test_overlapping_occurrences_count() -> None:
    assert find_all("aaa", "aa") == [0, 1]
    assert find_all("abc", "d") == []


async def test_empty_and_identical_texts_fail(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "app.py", "x\n")
    empty = await _prepare(tools, path="app.py", old_text="", new_text="y")
    assert isinstance(empty, ToolOutcome)
    assert "use write_file" in empty.content
    same = await _prepare(tools, path="app.py", old_text="x", new_text="x")
    assert isinstance(same, ToolOutcome)
    assert "identical" in same.content


async def test_missing_file_points_to_write_file(tools: WorkspaceTools) -> None:
    outcome = await _prepare(tools, path="new.py", old_text="a", new_text="b")
    assert isinstance(outcome, ToolOutcome)
    assert outcome.content == "new.py does not exist. Use write_file to create it."


async def test_crlf_file_is_matched_and_kept_crlf(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "win.py", "a = 1\r\nb = 2\r\n")
    edit = await _prepare(tools, path="win.py", old_text="a = 1\nb = 2", new_text="a = 1\nb = 3")
    assert isinstance(edit, PreparedEdit)
    assert edit.new_text == "a = 1\r\nb = 3\r\n"


async def test_binary_target_is_refused(tools: WorkspaceTools, ws: Path) -> None:
    (ws / "x.bin").write_bytes(b"a\0b")
    outcome = await _prepare(tools, path="x.bin", old_text="a", new_text="b")
    assert isinstance(outcome, ToolOutcome)
    assert outcome.status == "failed"
    assert "binary" in outcome.content


async def test_edit_outside_is_denied(tools: WorkspaceTools, ws: Path) -> None:
    outcome = await _prepare(tools, path="/etc/hosts", old_text="a", new_text="b")
    assert isinstance(outcome, ToolOutcome)
    assert outcome.status == "denied"
    assert outcome.content == (
        f"Access denied: /etc/hosts is outside allowed write directories: ['{ws}']. "
        "Write inside one of those directories instead."
    )


async def test_line_numbers_copied_from_the_excerpt_are_dropped(
    tools: WorkspaceTools, ws: Path
) -> None:
    """Qwen2.5-Coder-0.5B, live: it sent old_text "1 | def add(a, b):" for app.py's first line,
    the numbering of the task's excerpt copied along (tests/live/test_coder_live.py)."""
    write(ws, "app.py", "def add(a, b):\n    return a - b\n")
    edit = await _prepare(
        tools,
        path="app.py",
        old_text="1 | def add(a, b):\n2 |     return a - b",
        new_text="1 | def add(a, b):\n2 |     return a + b",
    )
    assert isinstance(edit, PreparedEdit)
    assert edit.new_text == "def add(a, b):\n    return a + b\n"


async def test_text_that_really_holds_numbers_is_matched_as_written(
    tools: WorkspaceTools, ws: Path
) -> None:
    write(ws, "table.md", "1 | one\n2 | two\n")
    edit = await _prepare(tools, path="table.md", old_text="2 | two", new_text="2 | deux")
    assert isinstance(edit, PreparedEdit)
    assert edit.new_text == "1 | one\n2 | deux\n"


async def test_an_edit_the_file_already_holds_is_ok_and_changes_nothing(
    tools: WorkspaceTools, ws: Path
) -> None:
    # bench/effect 20_dedupe: a block made the fix; the model then sent it again as a call.
    path = write(ws, "app.py", "def f(items):\n    seen = set()\n    return sorted(seen)\n")
    outcome = await _prepare(
        tools, path="app.py", old_text="    return list(items)", new_text="    seen = set()"
    )
    assert isinstance(outcome, ToolOutcome)
    assert outcome.status == "ok" and outcome.edit_status is None
    assert "new_text is there already (line 2)" in outcome.content
    assert "Nothing was changed." in outcome.content
    assert path.read_text() == "def f(items):\n    seen = set()\n    return sorted(seen)\n"
