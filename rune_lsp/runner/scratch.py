"""A scratch copy of the workspace, where candidate fixes are checked before anyone sees them.

What it holds and what it never does (docs/architecture.md#candidate-fixes):

- the files git lists for the workspace (`git ls-files -co --exclude-standard`: tracked and
  untracked, ignored ones left out), or, outside git, a walk that honours `.gitignore`; either
  way the dependency and cache directories in `SKIPPED_DIRS` (`.venv`, `node_modules`, ...) are
  not copied: a check runs the tools they hold through their absolute paths or `PATH`;
- every file as a regular copy (never a hard link): nothing the check writes there reaches the
  user's files. A workspace symlink that resolves inside the workspace becomes a relative link to
  the copy's own counterpart; one that resolves outside it is copied as the file it names, or
  left out (a directory outside): no link in the copy leads back into the workspace;
- the open editor buffers' text over the disk's (unsaved text wins), then a candidate's files.

Each copy lives in its own directory under `scratch_parent()` (`/dev/shm` when it has room, else
the temporary directory), named for the process that made it; `sweep_stale` removes those of
processes that are gone (a crash), and `remove` this one.
Everything here blocks: the runner calls it in a worker thread (runner/candidates.py).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from rune_lsp.tools.ignore import IgnoreRules

#: Directories never copied: environments and caches, large and not the code under test.
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        ".tox",
        ".nox",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)
#: Bytes read and written at a time when copying a file.
_CHUNK = 1024 * 1024
#: Free bytes /dev/shm must have to hold copies: memory-backed, with no disk journal to wait
#: for, it made a 10,000-file copy ten times faster on a busy machine (bench/scratch.py).
MIN_SHM_FREE = 1024**3
#: Seconds `git ls-files` may take before the walk is used instead.
GIT_TIMEOUT = 30.0
_PREFIX = "run-"
_FOLDER = "rune-lsp-scratch"


class ScratchError(Exception):
    """The scratch copy could not be made or updated (disk full, permissions)."""


def scratch_parents() -> tuple[Path, ...]:
    """Where scratch copies may live: memory-backed `/dev/shm` first, when it exists, is
    writable and has `MIN_SHM_FREE` bytes free; else the system's temporary directory."""
    temp = Path(tempfile.gettempdir()) / _FOLDER
    shm = Path("/dev/shm")
    try:
        usable = os.access(shm, os.W_OK) and _free(shm) >= MIN_SHM_FREE
    except OSError:
        usable = False
    return (shm / _FOLDER, temp) if usable else (temp,)


def scratch_parent() -> Path:
    return scratch_parents()[0]


def _free(path: Path) -> int:
    found = os.statvfs(path)
    return found.f_bavail * found.f_frsize


def sweep_stale(parent: Path | None = None) -> int:
    """Remove the copies whose process is gone (a crash or a kill left them); how many."""
    if parent is None:
        return sum(sweep_stale(folder) for folder in scratch_parents())
    try:
        entries = list(parent.iterdir())
    except OSError:
        return 0
    removed = 0
    for entry in entries:
        pid = _owner(entry.name)
        if pid is None or pid == os.getpid() or _alive(pid):
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed += 1
    return removed


def owned_directory(parent: Path | None = None) -> Path:
    """A new directory under `parent` (default `scratch_parent()`) named for this process, so
    that `sweep_stale` removes it once the process is gone. Raises OSError."""
    parent = parent or scratch_parent()
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-", dir=parent))


def python_path(first: Sequence[str]) -> dict[str, str]:
    """The environment that puts `first` before this process's own `PYTHONPATH`."""
    paths = [*first, *filter(None, [os.environ.get("PYTHONPATH")])]
    return {"PYTHONPATH": os.pathsep.join(paths)} if paths else {}


def _shadows_stdlib(folder: Path) -> bool:
    """Whether a module or a regular package in `folder` has a standard library module's name
    (a folder without `__init__.py` does not shadow one: the import goes on looking)."""
    try:
        names = {
            entry.name.removesuffix(".py")
            for entry in folder.iterdir()
            if entry.name.endswith(".py") or (entry / "__init__.py").is_file()
        }
    except OSError:
        return True
    return not names.isdisjoint(sys.stdlib_module_names)


def _owner(name: str) -> int | None:
    if not name.startswith(_PREFIX):
        return None
    head = name[len(_PREFIX) :].split("-", 1)[0]
    return int(head) if head.isdigit() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process: alive
        return True
    return True


class ScratchCopy:
    """One run's copy of the workspace at `source`, in its own directory `path`."""

    def __init__(self, source: Path, *, parent: Path | None = None) -> None:
        self.source = source.resolve()
        try:
            self.path = owned_directory(parent)
        except OSError as exc:  # its message names the folder it could not make
            raise ScratchError(f"cannot make a scratch directory: {exc}") from exc
        # What each copied file was when copied (mtime, size): what changed since is copied again.
        self._stamps: dict[str, tuple[int, int]] = {}
        # Files holding something else than the source's disk text (a buffer, a candidate).
        self._overwritten: set[str] = set()

    def populate(self) -> int:
        """Copy the workspace; the number of files copied."""
        try:
            listed = list_files(self.source)
            self._copy_all(listed, fresh=True)
        except OSError as exc:
            raise ScratchError(f"cannot copy {self.source} to {self.path}: {exc}") from exc
        return len(self._stamps)

    def stage(self, texts: Mapping[str, str]) -> None:
        """Make the copy the workspace as it is now, with `texts` (workspace-relative path ->
        text: open buffers, then a candidate's files) written over it."""
        try:
            listed = list_files(self.source)
            gone = set(self._stamps) - set(listed)
            for relative in gone:
                _unlink(self.path / relative)
                del self._stamps[relative]
            changed = [r for r in listed if self._changed(r) or r in self._overwritten]
            self._overwritten.clear()
            self._copy_all(changed)
            for relative, text in texts.items():
                self._write(relative, text)
        except OSError as exc:
            raise ScratchError(f"cannot update the scratch copy {self.path}: {exc}") from exc

    def import_paths(self) -> tuple[str, ...]:
        """Where the check's Python imports the workspace's own code from in the copy: its root
        and its `src` folder. Put first on `PYTHONPATH`, they win over an editable install of
        the workspace, which would import the user's files instead of the copy's (bare
        `pytest` puts neither on `sys.path`). A folder holding a module named as one of the
        standard library's is left out: first on the path, it would shadow that module."""
        return tuple(
            str(folder)
            for folder in (self.path, self.path / "src")
            if folder.is_dir() and not _shadows_stdlib(folder)
        )

    def translate(self, text: str) -> str:
        """Output of a check run in the copy, naming the workspace's paths instead of its own."""
        return text.replace(str(self.path), str(self.source))

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    # --- copying ---------------------------------------------------------------------------

    def _changed(self, relative: str) -> bool:
        try:
            found = os.lstat(self.source / relative)
        except OSError:
            return relative in self._stamps
        return self._stamps.get(relative) != (found.st_mtime_ns, found.st_size)

    def _copy_all(self, relatives: list[str], *, fresh: bool = False) -> None:
        """Copy `relatives`; `fresh`: into an empty copy (nothing to replace)."""
        root = str(self.path)
        for directory in sorted({os.path.dirname(r) for r in relatives}):
            os.makedirs(os.path.join(root, directory), exist_ok=True)
        for relative in relatives:
            stamp = self._copy_one(relative, fresh=fresh)
            if stamp is None:
                self._stamps.pop(relative, None)
            else:
                self._stamps[relative] = stamp

    def _copy_one(self, relative: str, *, fresh: bool) -> tuple[int, int] | None:
        """Copy one entry as the module docstring says; its stamp, or None when left out.
        Plain system calls, no `shutil.copyfile`: its extra stats per file tripled the cost
        of a 10,000-file copy (bench/scratch.py)."""
        source = os.path.join(self.source, relative)
        target = os.path.join(self.path, relative)
        if not fresh:
            _unlink(Path(target))
        try:
            found = os.lstat(source)
        except FileNotFoundError:  # listed by git but deleted on disk
            return None
        stamp = (found.st_mtime_ns, found.st_size)
        if stat.S_ISLNK(found.st_mode):
            return stamp if self._link(Path(source), Path(target)) else None
        if not stat.S_ISREG(found.st_mode):
            return None  # a pipe, a socket, a device, a submodule's directory: not copied
        _copy_file(source, target, stat.S_IMODE(found.st_mode) | stat.S_IWUSR)
        return stamp

    def _link(self, source: Path, target: Path) -> bool:
        """A workspace symlink, copied so that nothing in the copy leads back into it."""
        try:
            resolved = source.resolve(strict=True)
        except (OSError, RuntimeError):  # dangling or a loop: nothing to check against
            return False
        if resolved.is_relative_to(self.source):
            counterpart = self.path / resolved.relative_to(self.source)
            os.symlink(os.path.relpath(counterpart, target.parent), target)
            return True
        if resolved.is_file():
            shutil.copyfile(resolved, target)
            return True
        return False

    def _write(self, relative: str, text: str) -> None:
        target = self.path / relative
        if not target.resolve().is_relative_to(self.path.resolve()):
            raise ScratchError(f"{relative} is outside the scratch copy")
        target.parent.mkdir(parents=True, exist_ok=True)
        _unlink(target)  # never write through a link
        with open(target, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        self._overwritten.add(relative)


def _copy_file(source: str, target: str, mode: int) -> None:
    """A regular copy: a new file (never through a link, never over one), its mode kept."""
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    reading = os.open(source, os.O_RDONLY | nofollow)
    try:
        writing = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, mode)
        try:
            while chunk := os.read(reading, _CHUNK):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(writing, view) :]
        finally:
            os.close(writing)
    finally:
        os.close(reading)


def _unlink(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass


def list_files(root: Path) -> list[str]:
    """The workspace's files to copy, relative to `root`: git's list when `root` is in a
    git work tree, else a walk honouring `.gitignore`; `SKIPPED_DIRS` left out either way."""
    listed = _git_files(root)
    if listed is None:
        listed = list(_walk(root))
    return [r for r in listed if not SKIPPED_DIRS.intersection(Path(r).parts)]


def _git_files(root: Path) -> list[str] | None:
    if shutil.which("git") is None:
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-co", "--exclude-standard", "-z"],
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:  # not a work tree
        return None
    names = done.stdout.decode("utf-8", errors="surrogateescape").split("\0")
    return sorted({name for name in names if name})


def _walk(root: Path) -> Iterator[str]:
    stack = [(root, IgnoreRules().entering(root))]
    while stack:
        directory, rules = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            is_dir = entry.is_dir(follow_symlinks=False)
            if entry.name in SKIPPED_DIRS or rules.ignores(path, is_dir=is_dir):
                continue
            if is_dir:
                stack.append((path, rules.entering(path)))
            else:
                yield path.relative_to(root).as_posix()
