from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from rune_lsp.store import atomic
from rune_lsp.store.atomic import (
    atomic_write_text,
    is_temp_file,
    read_json_model,
    remove_stale_temps,
    stored_files,
)


class Point(BaseModel):
    x: int
    y: int


def test_write_creates_parents_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "er" / "p.json"
    atomic_write_text(target, '{"x": 1, "y": 2}')
    atomic_write_text(target, '{"x": 3, "y": 4}')
    assert read_json_model(target, Point) == Point(x=3, y=4)
    assert os.listdir(target.parent) == ["p.json"]


def test_write_keeps_text_exactly(tmp_path: Path) -> None:
    text = "line one\r\nzwei ünd drei ✓\n" + "x" * 200_000  # bigger than one write chunk
    target = tmp_path / "t.txt"
    atomic_write_text(target, text)
    assert target.read_bytes() == text.encode("utf-8")


@pytest.mark.parametrize(("durable", "fsyncs"), [(True, 2), (False, 1)])
def test_durable_writes_fsync_the_file_and_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, durable: bool, fsyncs: int
) -> None:
    calls: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append(fd) or real_fsync(fd))
    target = tmp_path / "a.md"
    atomic_write_text(target, "text", durable=durable)
    assert target.read_text() == "text"
    assert len(calls) == fsyncs
    assert [p.name for p in tmp_path.iterdir()] == ["a.md"]  # no temp left either way


def test_failed_replace_keeps_previous_and_removes_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "p.json"
    atomic_write_text(target, '{"x": 1, "y": 1}')

    def broken_replace(src: object, dst: object) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk on fire"):
        atomic_write_text(target, '{"x": 2, "y": 2}')
    assert read_json_model(target, Point) == Point(x=1, y=1)
    assert os.listdir(tmp_path) == ["p.json"]


def test_failed_write_keeps_previous_and_removes_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "p.json"
    atomic_write_text(target, '{"x": 1, "y": 1}')

    def full_disk(fd: int, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "_write_all", full_disk)
    with pytest.raises(OSError, match="No space"):
        atomic_write_text(target, '{"x": 2, "y": 2}')
    assert target.read_text() == '{"x": 1, "y": 1}'
    assert os.listdir(tmp_path) == ["p.json"]


def test_partial_os_writes_are_completed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write

    def short_write(fd: int, data: bytes | memoryview) -> int:
        return real_write(fd, bytes(data)[:7])  # the kernel may accept less than asked

    monkeypatch.setattr(os, "write", short_write)
    atomic_write_text(tmp_path / "t.txt", "0123456789" * 10)
    assert (tmp_path / "t.txt").read_text() == "0123456789" * 10


def test_read_missing_is_none_without_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        assert read_json_model(tmp_path / "nope.json", Point) is None
    assert caplog.records == []


@pytest.mark.parametrize(
    "content",
    [b"", b"{not json", b'{"x": 1}', b'{"x": "one", "y": 2}', b"\xff\xfe garbage", b"[]"],
)
def test_read_corrupt_is_none_with_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: bytes
) -> None:
    path = tmp_path / "p.json"
    path.write_bytes(content)
    with caplog.at_level(logging.WARNING):
        assert read_json_model(path, Point) is None
    assert "corrupt" in caplog.text and str(path) in caplog.text


def test_read_unreadable_is_none_with_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "p.json").mkdir()  # reading a directory fails with an OSError
    with caplog.at_level(logging.WARNING):
        assert read_json_model(tmp_path / "p.json", Point) is None
    assert "cannot read" in caplog.text


def test_stored_files_skip_temps_and_other_suffixes(tmp_path: Path) -> None:
    for name in ("a.json", "b.json", ".a.json.x1y2.tmp", "c.md", "notes.txt"):
        (tmp_path / name).write_text("{}")
    (tmp_path / "dir.json").mkdir()
    assert [p.name for p in stored_files(tmp_path, ".json")] == ["a.json", "b.json"]
    assert stored_files(tmp_path / "missing", ".json") == []
    assert is_temp_file(tmp_path / ".a.json.x1y2.tmp")
    assert not is_temp_file(tmp_path / "a.json")


def test_remove_stale_temps_spares_young_ones(tmp_path: Path) -> None:
    old, young, data = (
        tmp_path / ".r.json.old.tmp",
        tmp_path / ".r.json.new.tmp",
        tmp_path / "r.json",
    )
    for path in (old, young, data):
        path.write_text("{")
    an_hour_ago = time.time() - 3600
    os.utime(old, (an_hour_ago, an_hour_ago))
    os.utime(data, (an_hour_ago, an_hour_ago))
    assert remove_stale_temps(tmp_path) == [old]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".r.json.new.tmp", "r.json"]
    assert remove_stale_temps(tmp_path / "missing") == []
