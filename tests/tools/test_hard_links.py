"""Hard links through every tool (issue 14, item 6): a second name of a home secret is that
secret, for read_file, search and the disk source itself; a hard-linked file is never edited.

The HOME is a fake one under tmp_path.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rune_lsp.loop.state import ToolOutcome
from rune_lsp.tools.documents import DiskDocuments
from rune_lsp.tools.errors import AccessDenied, DocumentError
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.schemas import ReadFileArgs, SearchArgs, WriteFileArgs

KEY = "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA\n"


@pytest.fixture
def linked(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`ws/notes.txt` is a hard link to the fake home's `~/.ssh/id_rsa`."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY)
    monkeypatch.setenv("HOME", str(home))
    os.link(home / ".ssh" / "id_rsa", ws / "notes.txt")
    return ws / "notes.txt"


def test_the_disk_source_refuses_the_opened_inode(linked: Path) -> None:
    with pytest.raises(DocumentError, match="hard link to a file in a credential store") as caught:
        DiskDocuments().read_text(linked)
    assert isinstance(caught.value, AccessDenied)  # a denial, which a search skips


async def test_read_file_is_denied(tools: WorkspaceTools, linked: Path) -> None:
    outcome = await tools.execute("read_file", ReadFileArgs(path="notes.txt"))
    assert outcome.status == "denied"
    assert "hard link to a file in a credential store" in outcome.content
    assert "PRIVATE KEY" not in outcome.content


async def test_search_does_not_show_it(tools: WorkspaceTools, linked: Path, ws: Path) -> None:
    (ws / "other.txt").write_text("PRIVATE KEY rotation is documented here\n")
    outcome = await tools.execute("search", SearchArgs(pattern="PRIVATE KEY"))
    assert outcome.status == "ok"
    assert "other.txt:1" in outcome.content
    assert "b3BlbnNzaC1rZXkt" not in outcome.content and "notes.txt" not in outcome.content


async def test_write_file_through_a_hard_link_is_denied(
    tools: WorkspaceTools, ws: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.sh"
    outside.write_text("echo safe\n")
    os.link(outside, ws / "run.sh")
    change = await tools.prepare(
        "write_file",
        WriteFileArgs(path="run.sh", content="rm -rf ~\n"),
        call_id="c1",
        edit_id="e1",
        reason="",
    )
    assert isinstance(change, ToolOutcome)
    assert change.status == "denied" and "is a hard link" in change.content
    assert outside.read_text() == "echo safe\n"


async def test_search_lists_a_blocked_link_whether_or_not_it_matches(
    tools: WorkspaceTools, linked: Path
) -> None:
    """A 'not searched' note that appears only on a match would tell the model, one pattern at a
    time, what the credential holds."""
    matching = await tools.execute("search", SearchArgs(pattern="b3BlbnNzaC1rZXkt"))
    missing = await tools.execute("search", SearchArgs(pattern="zz-not-in-any-file-zz"))
    assert "notes.txt" not in matching.content and "notes.txt" not in missing.content
    assert matching.content.startswith("No matches") and missing.content.startswith("No matches")
