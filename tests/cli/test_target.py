"""`PATH[:LINE[-LINE]]` parsing and opening: every bad target is a UsageError, never a trace."""

from __future__ import annotations

from pathlib import Path

import pytest

from rune_lsp.cli.errors import UsageError
from rune_lsp.cli.target import Target, open_target, parse_target, workspace_root


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("src/app.py", Target(Path("src/app.py"))),
        ("src/app.py:12", Target(Path("src/app.py"), 11, 11)),
        ("src/app.py:12-20", Target(Path("src/app.py"), 11, 19)),
        ("src/app.py:1-1", Target(Path("src/app.py"), 0, 0)),
        ("/abs/dir:x/app.py:3", Target(Path("/abs/dir:x/app.py"), 2, 2)),
        ("app.py:", Target(Path("app.py:"))),  # not a range: a (missing) file of that name
        ("app.py:3-", Target(Path("app.py:3-"))),
    ],
)
def test_parse_target(raw: str, expected: Target) -> None:
    assert parse_target(raw) == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "no file given"),
        ("   ", "no file given"),
        (":3", "no file before the line range"),
        ("app.py:0", "lines are counted from 1"),
        ("app.py:0-4", "lines are counted from 1"),
        ("app.py:9-3", "the range ends before it starts (9-3)"),
    ],
)
def test_parse_target_rejects(raw: str, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_target(raw)


def test_an_existing_file_named_like_a_range_is_taken_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("notes:3").write_text("x\n")
    assert parse_target("notes:3") == Target(Path("notes:3"))


def test_open_target_resolves_and_finds_the_git_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    source = tmp_path / "pkg" / "mod.py"
    source.parent.mkdir()
    source.write_text("a\nb\nc\n")
    opened = open_target(Target(source, 1, 2))
    assert opened.root == tmp_path
    assert opened.relative_path == "pkg/mod.py"
    assert opened.text == "a\nb\nc\n"
    assert (opened.target.start_line, opened.target.end_line) == (1, 2)


def test_without_git_the_root_is_the_files_folder(tmp_path: Path) -> None:
    source = tmp_path / "lonely.py"
    source.write_text("x = 1\n")
    assert workspace_root(source) == tmp_path


def test_range_end_is_cut_to_the_last_line_and_a_start_past_it_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "three.py"
    source.write_text("a\nb\nc")
    assert open_target(Target(source, 1, 50)).target.end_line == 2
    with pytest.raises(UsageError, match=r"line 4 is past the end of .*three.py \(3 lines\)"):
        open_target(Target(source, 3, 3))


def test_line_1_of_an_empty_file_is_fine(tmp_path: Path) -> None:
    source = tmp_path / "empty.py"
    source.write_text("")
    assert open_target(Target(source, 0, 0)).text == ""


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x00\x01", "binary file"),
        (b"caf\xe9\n", "not UTF-8 text"),
    ],
)
def test_binary_files_are_refused(tmp_path: Path, content: bytes, message: str) -> None:
    source = tmp_path / "data.bin"
    source.write_bytes(content)
    with pytest.raises(UsageError, match=f"cannot fix .*data.bin: .*{message}.*text files"):
        open_target(Target(source))


def test_missing_file_and_directory_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file"):
        open_target(Target(tmp_path / "nope.py"))
    with pytest.raises(UsageError, match="it is a directory"):
        open_target(Target(tmp_path))


def test_lines_are_counted_as_the_editor_counts_them(tmp_path: Path) -> None:
    # Form feed and U+2028 end no line in an editor; `str.splitlines` counted 5 here.
    source = tmp_path / "feeds.py"
    source.write_bytes("a\x0cb\nc\u2028d\ne".encode())
    assert open_target(Target(source, 1, 50)).target.end_line == 2
    with pytest.raises(UsageError, match=r"line 4 is past the end of .*feeds.py \(3 lines\)"):
        open_target(Target(source, 3, 3))
