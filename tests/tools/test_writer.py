from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from rune_lsp.tools.writer import NEW_FILE_MODE, DiskWriter, write_atomic

#: Far past any safe age for a temp file a live writer could still own.
LONG_AGO = 2 * 3600


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


# --- leftovers of writers that died (issue 14, item 13) -----------------------------------------


def _aged(path: Path, seconds: float) -> Path:
    path.write_bytes(b"x" * 1024)
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


def test_a_write_removes_our_stale_temp_files_in_that_directory(tmp_path: Path) -> None:
    # What `kill -9` during a write leaves: mkstemp's name, not renamed, never touched again.
    stale = _aged(tmp_path / ".rune-k2x_9q0a.tmp", LONG_AGO)
    live = _aged(tmp_path / ".rune-ab12cd34.tmp", 5)  # a write still going on elsewhere
    users = _aged(tmp_path / ".rune-notes.tmp", LONG_AGO)  # not our naming
    other = _aged(tmp_path / ".app.py.tmp", LONG_AGO)

    write_atomic(tmp_path / "app.py", "x = 1\n")

    assert not stale.exists()
    assert live.exists() and users.exists() and other.exists()
    assert sorted(os.listdir(tmp_path)) == sorted(["app.py", live.name, users.name, other.name])


def test_stale_temp_cleanup_leaves_directories_and_links(tmp_path: Path) -> None:
    from rune_lsp.tools.writer import STALE_TEMP_SECONDS, remove_stale_temps

    (tmp_path / ".rune-aaaaaaaa.tmp").mkdir()
    target = _aged(tmp_path / "kept.txt", LONG_AGO)
    (tmp_path / ".rune-bbbbbbbb.tmp").symlink_to(target)
    later = time.time() + 2 * STALE_TEMP_SECONDS
    assert remove_stale_temps(tmp_path, now=later) == []
    assert target.exists()
