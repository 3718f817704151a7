from __future__ import annotations

from pathlib import Path

from rune_lsp.tools.ignore import IgnoreRules, is_ignored, scope_of, walk_files
from tests.tools.workspace import write


def _walk(root: Path, start: Path | None = None) -> list[str]:
    start = start or root
    return sorted(p.relative_to(root).as_posix() for p in walk_files(start, scope_of(start, root)))


def test_root_gitignore_and_git_dir_are_skipped(ws: Path) -> None:
    write(ws, ".gitignore", "build/\n*.log\n")
    write(ws, "src/app.py", "")
    write(ws, "build/out.o", "")
    write(ws, "src/debug.log", "")
    write(ws, ".git/config", "")
    assert _walk(ws) == [".gitignore", "src/app.py"]


def test_nested_gitignore_applies_below_its_directory(ws: Path) -> None:
    write(ws, "pkg/.gitignore", "generated.py\n")
    write(ws, "pkg/generated.py", "")
    write(ws, "generated.py", "")
    assert _walk(ws) == ["generated.py", "pkg/.gitignore"]


def test_deeper_gitignore_can_reinclude(ws: Path) -> None:
    write(ws, ".gitignore", "*.txt\n")
    write(ws, "keep/.gitignore", "!important.txt\n")
    write(ws, "keep/important.txt", "")
    write(ws, "keep/other.txt", "")
    assert _walk(ws) == [".gitignore", "keep/.gitignore", "keep/important.txt"]


def test_anchored_pattern_only_matches_at_its_level(ws: Path) -> None:
    write(ws, ".gitignore", "/top.txt\n")
    write(ws, "top.txt", "")
    write(ws, "sub/top.txt", "")
    assert _walk(ws) == [".gitignore", "sub/top.txt"]


def test_walk_from_a_subdirectory_honours_the_root_gitignore(ws: Path) -> None:
    write(ws, ".gitignore", "*.tmp\n")
    write(ws, "src/a.py", "")
    write(ws, "src/b.tmp", "")
    assert _walk(ws, ws / "src") == ["src/a.py"]


def test_symlinks_are_not_followed(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret.txt", "")
    write(ws, "a.txt", "")
    (ws / "link_dir").symlink_to(outside)
    (ws / "link_file").symlink_to(outside / "secret.txt")
    assert _walk(ws) == ["a.txt"]


def test_an_ignored_directory_named_explicitly_is_walked(ws: Path) -> None:
    write(ws, ".gitignore", "build/\n")
    write(ws, "build/out.o", "")
    scope = scope_of(ws / "build", ws)
    assert scope.ignored
    assert [p.name for p in walk_files(ws / "build", scope)] == ["out.o"]


def test_is_ignored_checks_every_parent(ws: Path) -> None:
    write(ws, ".gitignore", "vendor/\n")
    rules = IgnoreRules().entering(ws)
    assert is_ignored(ws / "vendor" / "lib" / "x.py", ws, rules)
    assert is_ignored(ws / ".git" / "x", ws, rules)
    assert not is_ignored(ws / "src" / "x.py", ws, rules)
