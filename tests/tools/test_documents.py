from __future__ import annotations

from pathlib import Path

import pytest

from rune_lsp.tools.documents import DiskDocuments, DocumentSource, SnapshotDocuments
from rune_lsp.tools.errors import BinaryFileError, DocumentError
from tests.tools.overlay import OverlayDocuments


def test_disk_reads_utf8_and_keeps_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes("héllo\r\nworld\n".encode())
    assert DiskDocuments().read_text(path) == "héllo\r\nworld\n"


def test_disk_missing_file_is_none(tmp_path: Path) -> None:
    assert DiskDocuments().read_text(tmp_path / "missing.txt") is None
    assert DiskDocuments().read_text(tmp_path / "missing" / "deeper.txt") is None


@pytest.mark.parametrize(
    ("data", "reason"),
    [(b"abc\0def", "NUL"), (b"\xff\xfe bad", "not UTF-8"), (b"x" * 9000 + b"\0", "NUL")],
)
def test_disk_refuses_binary(tmp_path: Path, data: bytes, reason: str) -> None:
    path = tmp_path / "blob.bin"
    path.write_bytes(data)
    with pytest.raises(BinaryFileError, match=reason):
        DiskDocuments().read_text(path)


def test_disk_refuses_files_over_the_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("x" * 101)
    with pytest.raises(DocumentError, match="too large"):
        DiskDocuments(max_bytes=100).read_text(path)
    assert DiskDocuments(max_bytes=101).read_text(path) == "x" * 101


def test_disk_directory_is_a_document_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="directory"):
        DiskDocuments().read_text(tmp_path)


def test_disk_has_no_open_documents(tmp_path: Path) -> None:
    disk = DiskDocuments()
    assert not disk.is_open(tmp_path / "a")
    assert list(disk.open_paths()) == []


def test_overlay_buffer_wins_over_disk(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("disk\n")
    other = tmp_path / "b.py"
    other.write_text("other\n")
    docs: DocumentSource = OverlayDocuments({path: "buffer\n"})
    assert docs.read_text(path) == "buffer\n"
    assert docs.is_open(path)
    assert docs.read_text(other) == "other\n"
    assert not docs.is_open(other)
    assert list(docs.open_paths()) == [path]


def test_overlay_serves_unsaved_new_documents(tmp_path: Path) -> None:
    path = tmp_path / "new.py"
    docs = OverlayDocuments({path: "not on disk yet"})
    assert docs.read_text(path) == "not on disk yet"


def test_overlay_mapping_and_callable_stay_live(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    buffers: dict[Path, str] = {}
    docs = OverlayDocuments(buffers)
    live = OverlayDocuments(lambda: buffers)
    buffers[path] = "typed just now"
    assert docs.read_text(path) == "typed just now"
    assert live.read_text(path) == "typed just now"


def test_overlay_matches_buffers_through_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    docs = OverlayDocuments({tmp_path / "alias" / "a.py": "buffer"})
    assert docs.read_text(real / "a.py") == "buffer"
    assert docs.is_open(real / "a.py")


def test_overlay_uses_the_given_fallback(tmp_path: Path) -> None:
    inner = OverlayDocuments({tmp_path / "x": "inner"})
    docs = OverlayDocuments({tmp_path / "y": "outer"}, fallback=inner)
    assert docs.read_text(tmp_path / "x") == "inner"
    assert set(docs.open_paths()) == {tmp_path / "x", tmp_path / "y"}


def test_snapshot_copies_open_buffers_once(tmp_path: Path) -> None:
    path = (tmp_path / "a.py").resolve()
    buffers = {path: "v1"}
    snapshot = SnapshotDocuments.of(OverlayDocuments(buffers))
    buffers[path] = "v2"
    assert snapshot.read_text(path) == "v1"
    assert snapshot.is_open(path)
    assert list(snapshot.open_paths()) == [path]
