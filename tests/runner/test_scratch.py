"""The scratch copy: what it holds, that nothing in it leads back to the workspace, its end."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rune_lsp.runner.scratch import ScratchCopy, list_files, sweep_stale


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text("from pkg.calc import add\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "out.txt").write_text("ignored\n")
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "python").write_text("not copied\n")
    return root


@pytest.fixture
def parent(tmp_path: Path) -> Path:
    return tmp_path / "scratch"


def copied(workspace: Path, parent: Path) -> ScratchCopy:
    copy = ScratchCopy(workspace, parent=parent)
    copy.populate()
    return copy


def test_a_git_workspace_is_copied_as_git_lists_it(workspace: Path, parent: Path) -> None:
    git(workspace, "init", "-q")
    git(workspace, "add", "pkg/calc.py")  # tracked; the rest untracked, still listed
    assert list_files(workspace) == [".gitignore", "pkg/calc.py", "tests/test_calc.py"]
    copy = copied(workspace, parent)
    assert (copy.path / "pkg" / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    assert not (copy.path / "build").exists()  # ignored
    assert not (copy.path / ".venv").exists()  # an environment
    assert not (copy.path / ".git").exists()


def test_outside_git_the_walk_honours_gitignore_and_skips_environments(
    workspace: Path, parent: Path
) -> None:
    assert list_files(workspace) == sorted(list_files(workspace))
    assert set(list_files(workspace)) == {".gitignore", "pkg/calc.py", "tests/test_calc.py"}


def test_files_are_regular_copies_that_never_write_through(workspace: Path, parent: Path) -> None:
    copy = copied(workspace, parent)
    source, scratch = workspace / "pkg" / "calc.py", copy.path / "pkg" / "calc.py"
    assert os.stat(source).st_ino != os.stat(scratch).st_ino
    assert os.stat(source).st_nlink == 1 and not scratch.is_symlink()
    scratch.write_text("changed in the copy\n")
    assert source.read_text() == "def add(a, b):\n    return a - b\n"


def test_no_symlink_in_the_copy_leads_back_into_the_workspace(
    workspace: Path, parent: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "data.txt").write_text("outside data\n")
    os.symlink("pkg/calc.py", workspace / "inside_link.py")
    os.symlink(outside / "data.txt", workspace / "outside_file.txt")
    os.symlink(outside / "dir", workspace / "outside_dir")
    os.symlink("pkg", workspace / "pkg_link")
    copy = copied(workspace, parent)

    inside = copy.path / "inside_link.py"
    assert inside.is_symlink() and inside.resolve() == (copy.path / "pkg" / "calc.py").resolve()
    assert (copy.path / "pkg_link").resolve() == (copy.path / "pkg").resolve()
    linked_file = copy.path / "outside_file.txt"
    assert not linked_file.is_symlink() and linked_file.read_text() == "outside data\n"
    assert not (copy.path / "outside_dir").exists()
    for path in copy.path.rglob("*"):
        assert not path.resolve().is_relative_to(workspace.resolve()), path


def test_staging_brings_the_copy_up_to_date_and_undoes_the_last_candidate(
    workspace: Path, parent: Path
) -> None:
    copy = copied(workspace, parent)
    copy.stage({"pkg/calc.py": "candidate one\n"})
    assert (copy.path / "pkg" / "calc.py").read_text() == "candidate one\n"
    (workspace / "tests" / "test_calc.py").write_text("changed on disk since\n")
    (workspace / "new.py").write_text("created since\n")
    copy.stage({"tests/test_calc.py": "candidate two\n"})
    assert (copy.path / "pkg" / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    assert (copy.path / "tests" / "test_calc.py").read_text() == "candidate two\n"
    assert (copy.path / "new.py").read_text() == "created since\n"
    (workspace / "new.py").unlink()
    copy.stage({})
    assert not (copy.path / "new.py").exists()
    assert (copy.path / "tests" / "test_calc.py").read_text() == "changed on disk since\n"


def test_a_staged_text_never_lands_outside_the_copy(workspace: Path, parent: Path) -> None:
    from rune_lsp.runner.scratch import ScratchError

    copy = copied(workspace, parent)
    with pytest.raises(ScratchError):
        copy.stage({"../escaped.py": "no"})
    assert not (copy.path.parent / "escaped.py").exists()


def test_remove_leaves_nothing(workspace: Path, parent: Path) -> None:
    copy = copied(workspace, parent)
    copy.remove()
    assert not copy.path.exists()


def test_the_next_start_sweeps_copies_of_dead_processes_only(workspace: Path, parent: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    left = parent / f"run-{dead.stdout.strip()}-crashed"
    (left / "pkg").mkdir(parents=True)
    mine = copied(workspace, parent)
    other = parent / "unrelated"
    other.mkdir()
    assert sweep_stale(parent) == 1
    assert not left.exists() and mine.path.exists() and other.exists()


def test_a_copy_that_cannot_be_made_names_the_folder(workspace: Path, tmp_path: Path) -> None:
    from rune_lsp.runner.scratch import ScratchError

    blocked = tmp_path / "blocked"
    blocked.write_text("", encoding="utf-8")  # a file where the scratch folder would go

    with pytest.raises(
        ScratchError, match=f"cannot make a scratch directory: .*{re.escape(str(blocked))}"
    ):
        ScratchCopy(workspace, parent=blocked)
