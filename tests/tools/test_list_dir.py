from __future__ import annotations

from pathlib import Path

from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.list_dir import MAX_ENTRIES
from rune_lsp.tools.sandbox import Sandbox
from rune_lsp.tools.schemas import ListDirArgs
from tests.tools.overlay import OverlayDocuments
from tests.tools.workspace import write


async def test_sorted_with_directories_marked(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "b.py", "")
    write(ws, "a/x.py", "")
    write(ws, "C.md", "")
    outcome = await tools.execute("list_dir", ListDirArgs())
    assert outcome.status == "ok"
    assert outcome.content == "./ (3 entries)\nC.md\na/\nb.py"


async def test_git_and_gitignored_entries_are_hidden(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, ".gitignore", "build/\n*.pyc\n")
    write(ws, ".git/HEAD", "")
    write(ws, "build/out", "")
    write(ws, "x.pyc", "")
    write(ws, "x.py", "")
    outcome = await tools.execute("list_dir", ListDirArgs(path="."))
    assert outcome.content.splitlines() == [
        "./ (2 entries)",
        ".gitignore",
        "x.py",
        "[3 not shown: .git and entries matched by .gitignore]",
    ]


async def test_nested_gitignore_on_the_way_down(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, ".gitignore", "*.log\n")
    write(ws, "pkg/.gitignore", "cache/\n")
    write(ws, "pkg/cache/x", "")
    write(ws, "pkg/run.log", "")
    write(ws, "pkg/mod.py", "")
    outcome = await tools.execute("list_dir", ListDirArgs(path="pkg"))
    assert outcome.content.splitlines()[:3] == ["pkg/ (2 entries)", ".gitignore", "mod.py"]


async def test_listing_is_capped(ws: Path) -> None:
    tools = WorkspaceTools(ws, Sandbox.for_workspace([ws]), OverlayDocuments({}))
    for n in range(MAX_ENTRIES + 5):
        (ws / f"f{n:04}").touch()
    outcome = await tools.execute("list_dir", ListDirArgs())
    lines = outcome.content.splitlines()
    assert lines[1] == "f0000"
    assert lines[-1].startswith(f"[showing {MAX_ENTRIES} of {MAX_ENTRIES + 5} entries")
    assert len(lines) == MAX_ENTRIES + 2


async def test_empty_directory(tools: WorkspaceTools, ws: Path) -> None:
    (ws / "empty").mkdir()
    outcome = await tools.execute("list_dir", ListDirArgs(path="empty"))
    assert outcome.content == "empty/ (empty)"


async def test_file_and_missing_paths_fail(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "a.py", "")
    file_outcome = await tools.execute("list_dir", ListDirArgs(path="a.py"))
    assert file_outcome.status == "failed"
    assert "use read_file" in file_outcome.content
    missing = await tools.execute("list_dir", ListDirArgs(path="nope"))
    assert missing.status == "failed"
    assert "nope does not exist" in missing.content


async def test_listing_outside_is_denied(tools: WorkspaceTools) -> None:
    outcome = await tools.execute("list_dir", ListDirArgs(path="/"))
    assert outcome.status == "denied"
