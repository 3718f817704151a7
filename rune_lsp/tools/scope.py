"""Which folder a run works in and what its tools may touch: the one place that decides.

With workspace folders, the run's root is the deepest folder holding the document and the
sandbox is the folders (plus the document itself when it lies outside all of them: the user
asked for that file). Without any (an editor that sends no `rootUri` and no
`workspaceFolders`), the document's own folder is the root only when it is a project root by
`PROJECT_MARKERS`; otherwise the run is in single-file mode and may read and write that one
file. The home directory and the filesystem root are never project roots: a dotfiles `~/.git`
must not open all of `$HOME`. The hard-blocked set (tools/blocked.py) applies in every case.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rune_lsp.tools.sandbox import Sandbox

#: A folder holding one of these is a project root (version control, then build files).
PROJECT_MARKERS = (
    ".git",
    ".hg",
    ".svn",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "package.json",
    "Cargo.toml",
    "go.mod",
    "Makefile",
    "CMakeLists.txt",
    "meson.build",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "Gemfile",
    "composer.json",
    "deno.json",
    "mix.exs",
    "dune-project",
)


@dataclass(frozen=True)
class RunScope:
    """`root`: where relative paths start and how paths are shown; `sandbox`: what tools may
    touch."""

    root: Path
    sandbox: Sandbox

    @property
    def single_file(self) -> bool:
        return self.sandbox.single_file is not None


def scope_for(
    document: Path,
    folders: Sequence[Path],
    *,
    write_dirs: Sequence[str | Path] | None = None,
) -> RunScope:
    """The scope of a run on `document` (absolute) given the editor's workspace folders."""
    path = Path(os.path.realpath(document))
    resolved = [Path(os.path.realpath(f)) for f in folders]
    if not resolved:
        folder = path.parent
        if is_project_root(folder):
            return RunScope(folder, Sandbox.for_workspace([folder], write_dirs=write_dirs))
        return RunScope(folder, Sandbox.for_single_file(path, write_dirs=write_dirs))
    containing = [f for f in resolved if path.is_relative_to(f)]
    if containing:
        root = max(containing, key=lambda f: len(f.parts))
        return RunScope(root, Sandbox.for_workspace(resolved, write_dirs=write_dirs))
    workspace = Sandbox.for_workspace(resolved, write_dirs=write_dirs)
    sandbox = Sandbox(
        read_roots=(*workspace.read_roots, path),
        write_roots=(*workspace.write_roots, path),
        workspace_roots=workspace.workspace_roots,
    )
    return RunScope(resolved[0], sandbox)


def is_project_root(folder: Path) -> bool:
    """True when `folder` holds a project marker and is neither `/` nor the home directory
    (nor above it)."""
    return _may_be_root(folder) and any(
        os.path.lexists(folder / marker) for marker in PROJECT_MARKERS
    )


def repository_root(path: Path) -> Path | None:
    """The nearest folder above `path` holding `.git` (what a terminal run takes as its
    workspace), looking no higher than the home directory and never taking it or `/`."""
    for folder in Path(os.path.realpath(path)).parents:
        if not _may_be_root(folder):
            return None
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def _may_be_root(folder: Path) -> bool:
    if folder == folder.parent:
        return False
    try:
        home = Path(os.path.realpath(Path.home()))
    except RuntimeError:
        return True
    return not home.is_relative_to(folder)
