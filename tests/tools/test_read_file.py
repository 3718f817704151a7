from __future__ import annotations

from pathlib import Path

from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.read_file import MAX_LINES
from rune_lsp.tools.sandbox import Sandbox
from rune_lsp.tools.schemas import ReadFileArgs
from tests.tools.overlay import OverlayDocuments
from tests.tools.workspace import write


async def test_numbered_lines(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "src/app.py", "import os\n\nprint(os.sep)\n")
    outcome = await tools.execute("read_file", ReadFileArgs(path="src/app.py"))
    assert outcome.status == "ok"
    assert outcome.content == "   1 | import os\n   2 | \n   3 | print(os.sep)"


async def test_unsaved_buffer_is_what_is_read(
    tools: WorkspaceTools, ws: Path, buffers: dict[Path, str]
) -> None:
    path = write(ws, "a.py", "on disk\n")
    buffers[path] = "in the editor\n"
    outcome = await tools.execute("read_file", ReadFileArgs(path="a.py"))
    assert outcome.content == "   1 | in the editor"


async def test_long_file_is_paged_with_a_note(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "long.txt", "".join(f"line {n}\n" for n in range(1, 5001)))
    first = await tools.execute("read_file", ReadFileArgs(path="long.txt"))
    rows = first.content.splitlines()
    assert rows[0] == "   1 | line 1"
    assert rows[MAX_LINES - 1] == f" {MAX_LINES} | line {MAX_LINES}"
    assert rows[-1] == (
        f"[showing lines 1-{MAX_LINES} of 5000; call read_file with "
        f"start_line={MAX_LINES + 1} to read on]"
    )
    second = await tools.execute("read_file", ReadFileArgs(path="long.txt", start_line=401))
    assert second.content.splitlines()[0] == " 401 | line 401"


async def test_range_is_inclusive_and_noted(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "a.txt", "a\nb\nc\nd\n")
    outcome = await tools.execute("read_file", ReadFileArgs(path="a.txt", start_line=2, end_line=3))
    assert outcome.content == "   2 | b\n   3 | c\n[showing lines 2-3 of 4]"


async def test_end_line_past_the_end_is_clamped(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "a.txt", "a\nb")
    outcome = await tools.execute("read_file", ReadFileArgs(path="a.txt", end_line=99))
    assert outcome.content == "   1 | a\n   2 | b"


async def test_character_budget_caps_output(ws: Path, buffers: dict[Path, str]) -> None:
    tools = WorkspaceTools(
        ws, Sandbox.for_workspace([ws]), OverlayDocuments(buffers), output_cap=1000
    )
    write(ws, "wide.txt", "".join("x" * 90 + "\n" for _ in range(100)))
    outcome = await tools.execute("read_file", ReadFileArgs(path="wide.txt"))
    assert len(outcome.content) <= 1000
    assert "call read_file with start_line=" in outcome.content.splitlines()[-1]


async def test_very_long_line_is_truncated(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "min.js", "y" * 50_000)
    outcome = await tools.execute("read_file", ReadFileArgs(path="min.js"))
    assert outcome.status == "ok"
    assert "[48000 more characters]" in outcome.content
    assert len(outcome.content) < 3000


async def test_crlf_endings_are_not_shown(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "win.txt", "a\r\nb\r\n")
    outcome = await tools.execute("read_file", ReadFileArgs(path="win.txt"))
    assert outcome.content == "   1 | a\n   2 | b"


async def test_empty_file(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "empty.txt", "")
    outcome = await tools.execute("read_file", ReadFileArgs(path="empty.txt"))
    assert outcome.status == "ok"
    assert outcome.content == "empty.txt is empty (0 lines)."


async def test_start_past_the_end_fails(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "a.txt", "a\nb\n")
    outcome = await tools.execute("read_file", ReadFileArgs(path="a.txt", start_line=5))
    assert outcome.status == "failed"
    assert "a.txt has 2 lines; start_line=5 is past the end" in outcome.content


async def test_binary_file_is_refused(tools: WorkspaceTools, ws: Path) -> None:
    (ws / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")
    outcome = await tools.execute("read_file", ReadFileArgs(path="img.png"))
    assert outcome.status == "failed"
    assert outcome.content == "Cannot use img.png: it is a binary file (contains NUL bytes)."


async def test_missing_file_suggests_similar_names(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "src/app.py", "")
    outcome = await tools.execute("read_file", ReadFileArgs(path="src/ap.py"))
    assert outcome.status == "failed"
    assert outcome.content == "src/ap.py does not exist. Similar names: src/app.py."


async def test_directory_points_to_list_dir(tools: WorkspaceTools, ws: Path) -> None:
    (ws / "src").mkdir()
    outcome = await tools.execute("read_file", ReadFileArgs(path="src"))
    assert outcome.status == "failed"
    assert "use list_dir" in outcome.content


async def test_outside_the_workspace_is_denied(tools: WorkspaceTools, ws: Path) -> None:
    outcome = await tools.execute("read_file", ReadFileArgs(path="../../etc/passwd"))
    assert outcome.status == "denied"
    assert f"['{ws}']" in outcome.content
