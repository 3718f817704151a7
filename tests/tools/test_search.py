from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rune_lsp.tools.context import ToolContext
from rune_lsp.tools.documents import MAX_TEXT_BYTES, SnapshotDocuments
from rune_lsp.tools.errors import ToolError
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.sandbox import Sandbox
from rune_lsp.tools.schemas import SearchArgs
from rune_lsp.tools.search import MAX_HIT_CHARS, MAX_HITS, MAX_SKIPPED_SHOWN, search
from tests.tools.overlay import OverlayDocuments
from tests.tools.workspace import write


async def test_hits_sorted_by_path_then_line(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "b.py", "x = 1\ny = 2\nx = 3\n")
    write(ws, "a/z.py", "x\n")
    write(ws, "a.py", "nothing\n")
    outcome = await tools.execute("search", SearchArgs(pattern=r"^x"))
    assert outcome.status == "ok"
    assert outcome.content == "a/z.py:1: x\nb.py:1: x = 1\nb.py:3: x = 3"


async def test_unsaved_buffer_text_wins(
    tools: WorkspaceTools, ws: Path, buffers: dict[Path, str]
) -> None:
    path = write(ws, "a.py", "old_name()\n")
    buffers[path] = "\nnew_name()\n"
    gone = await tools.execute("search", SearchArgs(pattern="old_name"))
    assert gone.content.startswith("No matches for 'old_name'")
    found = await tools.execute("search", SearchArgs(pattern="new_name"))
    assert found.content == "a.py:2: new_name()"


async def test_unsaved_new_document_is_searched(
    tools: WorkspaceTools, ws: Path, buffers: dict[Path, str]
) -> None:
    buffers[ws / "draft.py"] = "needle\n"
    outcome = await tools.execute("search", SearchArgs(pattern="needle"))
    assert outcome.content == "draft.py:1: needle"


async def test_open_buffer_in_an_ignored_place_is_not_searched(
    tools: WorkspaceTools, ws: Path, buffers: dict[Path, str]
) -> None:
    write(ws, ".gitignore", "build/\n")
    buffers[ws / "build" / "gen.py"] = "needle\n"
    outcome = await tools.execute("search", SearchArgs(pattern="needle"))
    assert outcome.content.startswith("No matches")


async def test_gitignore_git_and_binary_files_are_skipped(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, ".gitignore", "dist/\n")
    write(ws, "dist/bundle.js", "needle\n")
    write(ws, ".git/COMMIT_EDITMSG", "needle\n")
    (ws / "blob.bin").write_bytes(b"needle\0")
    write(ws, "src/ok.py", "needle\n")
    (ws / "other.bin").write_bytes(b"nothing here\0")
    outcome = await tools.execute("search", SearchArgs(pattern="needle"))
    assert outcome.content == (
        "src/ok.py:1: needle\n"
        "[not searched: 1 file that may hold a match but cannot be read as text]\n"
        "- blob.bin: it is a binary file (contains NUL bytes)"
    )


async def test_path_and_glob_narrow_the_search(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "src/a.py", "hit\n")
    write(ws, "src/deep/b.py", "hit\n")
    write(ws, "src/c.txt", "hit\n")
    write(ws, "tests/t.py", "hit\n")
    in_src = await tools.execute("search", SearchArgs(pattern="hit", path="src", glob="*.py"))
    assert in_src.content == "src/a.py:1: hit\nsrc/deep/b.py:1: hit"
    anchored = await tools.execute("search", SearchArgs(pattern="hit", glob="src/*.py"))
    assert anchored.content == "src/a.py:1: hit"
    negated = await tools.execute("search", SearchArgs(pattern="hit", glob="!*.py"))
    assert negated.content == "src/c.txt:1: hit"


async def test_a_single_file_can_be_searched(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "a.py", "one\ntwo\n")
    outcome = await tools.execute("search", SearchArgs(pattern="two", path="a.py"))
    assert outcome.content == "a.py:2: two"


async def test_hits_are_capped_with_a_note(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "many.txt", "hit\n" * (MAX_HITS + 10))
    outcome = await tools.execute("search", SearchArgs(pattern="hit"))
    lines = outcome.content.splitlines()
    assert len(lines) == MAX_HITS + 1
    assert lines[-1].startswith(f"[showing the first {MAX_HITS} matches; more exist.")


async def test_long_hit_lines_are_truncated(tools: WorkspaceTools, ws: Path) -> None:
    write(ws, "wide.txt", "hit" + "z" * 1000 + "\n")
    outcome = await tools.execute("search", SearchArgs(pattern="hit"))
    assert outcome.content.startswith("wide.txt:1: hit")
    assert outcome.content.endswith(f"[{1003 - MAX_HIT_CHARS} more characters]")


async def test_invalid_regex_fails_naming_the_error(tools: WorkspaceTools) -> None:
    outcome = await tools.execute("search", SearchArgs(pattern="(unclosed"))
    assert outcome.status == "failed"
    assert "Invalid regular expression '(unclosed'" in outcome.content
    assert "missing )" in outcome.content


async def test_missing_path_and_outside_path(tools: WorkspaceTools) -> None:
    missing = await tools.execute("search", SearchArgs(pattern="x", path="nope"))
    assert missing.status == "failed"
    outside = await tools.execute("search", SearchArgs(pattern="x", path="/etc"))
    assert outside.status == "denied"


async def test_symlinked_files_outside_are_not_searched(
    tools: WorkspaceTools, ws: Path, tmp_path: Path
) -> None:
    write(tmp_path, "outside/secret.txt", "needle\n")
    (ws / "link").symlink_to(tmp_path / "outside")
    outcome = await tools.execute("search", SearchArgs(pattern="needle"))
    assert outcome.content.startswith("No matches")


def _corpus(ws: Path, buffers: dict[Path, str]) -> None:
    write(ws, ".gitignore", "ignored/\n*.tmp\n")
    write(ws, "ignored/x.py", "def f(): pass\n")
    write(ws, "a.tmp", "def f(): pass\n")
    write(ws, "src/app.py", "def main():\n    return helper()\r\n\ndef helper(): ...\n")
    write(ws, "src/util.py", "import os\ndef util():\n    pass\n")
    write(ws, "docs/readme.md", "def in docs\n")
    (ws / "bin.dat").write_bytes(b"def \0")
    path = write(ws, "src/open.py", "def on_disk(): ...\n")
    buffers[path] = "def in_buffer(): ...\n"
    buffers[ws / "src" / "unsaved.py"] = "def brand_new(): ...\n"


@pytest.mark.parametrize(
    "args",
    [
        SearchArgs(pattern=r"def \w+"),
        SearchArgs(pattern=r"\)$"),
        SearchArgs(pattern="def", path="src"),
        SearchArgs(pattern="def", glob="*.py"),
        SearchArgs(pattern=r"(?<=def )helper"),  # look-behind: rg's default engine rejects it
    ],
)
def test_ripgrep_and_python_give_identical_results(
    ws: Path, buffers: dict[Path, str], args: SearchArgs
) -> None:
    rg = shutil.which("rg")
    if rg is None:
        pytest.skip("ripgrep (rg) is not on PATH; the Python path is tested on its own above")
    _corpus(ws, buffers)
    ctx = ToolContext(
        root=ws,
        sandbox=Sandbox.for_workspace([ws]),
        documents=SnapshotDocuments.of(OverlayDocuments(buffers)),
    )
    assert search(ctx, args, ripgrep=rg) == search(ctx, args, ripgrep=None)


def test_python_search_over_the_shared_corpus(ws: Path, buffers: dict[Path, str]) -> None:
    """The reference the ripgrep comparison above is held to."""
    _corpus(ws, buffers)
    ctx = ToolContext(
        root=ws,
        sandbox=Sandbox.for_workspace([ws]),
        documents=SnapshotDocuments.of(OverlayDocuments(buffers)),
    )
    assert search(ctx, SearchArgs(pattern=r"def \w+"), ripgrep=None).splitlines() == [
        "docs/readme.md:1: def in docs",
        "src/app.py:1: def main():",
        "src/app.py:4: def helper(): ...",
        "src/open.py:1: def in_buffer(): ...",
        "src/unsaved.py:1: def brand_new(): ...",
        "src/util.py:2: def util():",
    ]
    assert search(ctx, SearchArgs(pattern=r"\)$"), ripgrep=None).splitlines() == [
        "src/app.py:2:     return helper()",
    ]


def _context(ws: Path, buffers: dict[Path, str] | None = None) -> ToolContext:
    return ToolContext(
        root=ws,
        sandbox=Sandbox.for_workspace([ws]),
        documents=SnapshotDocuments.of(OverlayDocuments(buffers or {})),
    )


def _ripgrep_modes() -> list[str | None]:
    return [None, shutil.which("rg")] if shutil.which("rg") else [None]


def _too_large(ws: Path, relative: str) -> Path:
    path = ws / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:  # the pattern on line 1, then past the size limit
        handle.write(b"needle\n")
        handle.truncate(MAX_TEXT_BYTES + 1)
    return path


@pytest.mark.parametrize("rg", _ripgrep_modes())
def test_a_named_file_that_cannot_be_searched_says_why(ws: Path, rg: str | None) -> None:
    _too_large(ws, "big.log")
    (ws / "blob.bin").write_bytes(b"needle\0")
    ctx = _context(ws)
    with pytest.raises(ToolError) as big:
        search(ctx, SearchArgs(pattern="needle", path="big.log"), ripgrep=rg)
    assert str(big.value) == (
        f"Cannot search big.log: it is too large ({MAX_TEXT_BYTES + 1} bytes; "
        f"the limit is {MAX_TEXT_BYTES})."
    )
    with pytest.raises(ToolError) as binary:
        search(ctx, SearchArgs(pattern="absent", path="blob.bin"), ripgrep=rg)
    assert str(binary.value) == "Cannot search blob.bin: it is a binary file (contains NUL bytes)."


@pytest.mark.parametrize("rg", _ripgrep_modes())
def test_a_directory_search_counts_what_it_could_not_read(ws: Path, rg: str | None) -> None:
    _too_large(ws, "logs/big.log")
    for index in range(MAX_SKIPPED_SHOWN + 1):
        (ws / f"blob{index}.bin").write_bytes(b"needle\0")
    assert search(_context(ws), SearchArgs(pattern="needle"), ripgrep=rg).splitlines() == [
        "No matches for 'needle' in ..",
        f"[not searched: {MAX_SKIPPED_SHOWN + 2} files that may hold a match "
        "but cannot be read as text]",
        *(
            f"- blob{i}.bin: it is a binary file (contains NUL bytes)"
            for i in range(MAX_SKIPPED_SHOWN)
        ),
        "- and 2 more",  # the last blob and logs/big.log
    ]


async def test_the_skipped_note_is_kept_when_hits_fill_the_output(ws: Path) -> None:
    tools = WorkspaceTools(
        ws, Sandbox.for_workspace([ws]), OverlayDocuments({}), output_cap=2_000, use_ripgrep=False
    )
    write(ws, "a.txt", ("needle " + "x" * 150 + "\n") * 50)
    (ws / "b.bin").write_bytes(b"needle\0")
    outcome = await tools.execute("search", SearchArgs(pattern="needle"))
    assert len(outcome.content) <= 2_000
    assert outcome.content.endswith(
        "[not searched: 1 file that may hold a match but cannot be read as text]\n"
        "- b.bin: it is a binary file (contains NUL bytes)"
    )
