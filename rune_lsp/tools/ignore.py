"""`.gitignore` rules and the directory walk that honours them.

The root `.gitignore` and every nested one on the way down apply, the deeper file winning, as in
git. `.git` itself is never listed or searched, and symlinks are not followed: a link can point
anywhere, and what it points to inside the workspace is reached by its real path anyway.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

MAX_GITIGNORE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class _Layer:
    directory: Path
    spec: GitIgnoreSpec


def _load(directory: Path) -> GitIgnoreSpec | None:
    try:
        with open(directory / ".gitignore", "rb") as handle:
            data = handle.read(MAX_GITIGNORE_BYTES)
    except OSError:
        return None
    lines = data.decode("utf-8", errors="replace").splitlines()
    spec = GitIgnoreSpec.from_lines(lines)
    return spec if len(spec) else None


@dataclass(frozen=True)
class IgnoreRules:
    """The `.gitignore` files in force for one directory, shallowest first."""

    layers: tuple[_Layer, ...] = ()

    def entering(self, directory: Path) -> IgnoreRules:
        """The rules inside `directory`: these plus its own `.gitignore`, if any."""
        spec = _load(directory)
        if spec is None:
            return self
        return IgnoreRules((*self.layers, _Layer(directory, spec)))

    def ignores(self, path: Path, *, is_dir: bool) -> bool:
        if path.name == ".git":
            return True
        for layer in reversed(self.layers):
            if not path.is_relative_to(layer.directory) or path == layer.directory:
                continue
            relative = path.relative_to(layer.directory).as_posix() + ("/" if is_dir else "")
            decision = layer.spec.check_file(relative).include
            if decision is not None:
                return decision
        return False


@dataclass(frozen=True)
class Scope:
    """The rules in force in a directory, and whether that directory is itself ignored."""

    rules: IgnoreRules
    ignored: bool


def scope_of(directory: Path, base: Path) -> Scope:
    """Rules for `directory`, gathered from `base` down.

    A directory the model names explicitly is shown even when ignored; inside it only its own
    nested `.gitignore` files apply, since the ignoring rule would otherwise hide everything.
    """
    rules = IgnoreRules().entering(base)
    if not directory.is_relative_to(base):
        return Scope(IgnoreRules().entering(directory), ignored=False)
    ignored = False
    current = base
    for part in directory.relative_to(base).parts:
        current = current / part
        if rules.ignores(current, is_dir=True):
            ignored = True
            rules = IgnoreRules()
        rules = rules.entering(current)
    return Scope(rules, ignored)


def is_ignored(path: Path, start: Path, rules: IgnoreRules) -> bool:
    """Whether a walk from `start` under `rules` would skip the file `path` or a parent of it."""
    if not path.is_relative_to(start):
        return False
    current = start
    parts = path.relative_to(start).parts
    for index, part in enumerate(parts):
        current = current / part
        last = index == len(parts) - 1
        if rules.ignores(current, is_dir=not last):
            return True
        if not last:
            rules = rules.entering(current)
    return False


def walk_files(start: Path, scope: Scope) -> Iterator[Path]:
    """Regular files under `start` that no `.gitignore` in force excludes."""
    stack: list[tuple[Path, IgnoreRules]] = [(start, scope.rules)]
    while stack:
        directory, rules = stack.pop()
        try:
            with os.scandir(directory) as entries:
                found = list(entries)
        except OSError:  # unreadable or vanished mid-walk: skip, as git and ripgrep do
            continue
        for entry in found:
            try:
                if entry.is_symlink():
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            path = directory / entry.name
            if rules.ignores(path, is_dir=is_dir):
                continue
            if is_dir:
                stack.append((path, rules.entering(path)))
            elif is_file:
                yield path
