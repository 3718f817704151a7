from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from rune_lsp.tools.writer import NEW_FILE_MODE, DiskWriter, write_atomic


async def test_writes_creating_parents(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "c.txt"
    await DiskWriter().write(target, "héllo\r\n")
    assert target.read_bytes() == "héllo\r\n".encode()
    assert stat.S_IMODE(target.stat().st_mode) == NEW_FILE_MODE
    assert os.listdir(target.parent) == ["c.txt"]


def test_replacing_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_text("old")
    target.chmod(0o755)
    write_atomic(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o755


def test_a_final_symlink_is_replaced_not_followed(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("real")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert real.read_text() == "real"
    assert not link.is_symlink()
    assert link.read_text() == "new"


def test_failure_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "bad.txt"
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "\ud800")
    assert os.listdir(tmp_path) == []
    (tmp_path / "dir").mkdir()
    with pytest.raises(OSError):
        write_atomic(tmp_path / "dir", "x")
    assert sorted(os.listdir(tmp_path)) == ["dir"]
