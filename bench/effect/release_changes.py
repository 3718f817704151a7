"""How a library's modules differ between two releases, hunk by hunk, for the `release`
corpora (bench/effect/release_bugs.py, bench/effect/mine_release_bugs.py).

A hunk is one change of a zero-context diff (difflib's opcodes, as `diff -U0` would show
them), numbered from 0 in the module's diff; a hunk that only changes version lines does not
count. A fix is either a whole module of one or two small hunks (the strict rule) or one
small hunk of a module taken alone, applied to the older module (`apply_hunk`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass

MAX_HUNKS = 2
#: A release that changed more modules than this is a refactoring, not a fix.
MAX_MODULES = 6
MAX_CHANGED_LINES = 15
#: A line that only names the release: a version bump is no part of the fix.
VERSION_LINE = re.compile(r"""^\s*(__version__|version|VERSION|__version_info__)\s*[:=]""")


@dataclass(frozen=True)
class Hunk:
    """One change of a module's zero-context diff: lines [old_start, old_end) of the older
    module become lines [new_start, new_end) of the newer one (0-based)."""

    index: int
    old_start: int
    old_end: int
    new_start: int
    new_end: int
    version_only: bool  # it only changes version lines

    @property
    def lines(self) -> int:
        """Lines removed plus lines added."""
        return self.old_end - self.old_start + self.new_end - self.new_start

    @property
    def small(self) -> bool:
        return not self.version_only and self.lines <= MAX_CHANGED_LINES


@dataclass(frozen=True)
class ModuleChange:
    """How one module differs between two releases, version lines left out."""

    module: str  # its workspace path
    hunks: int
    lines: int  # lines removed plus lines added
    #: The indexes of its hunks that could be a fix alone (see Hunk.small); for a module
    #: the older release has.
    small_hunks: tuple[int, ...] = ()

    def why_not(self) -> str | None:
        """Why this is not a fix of one or two small hunks, or None."""
        if not 1 <= self.hunks <= MAX_HUNKS:
            return f"{self.hunks} hunks"
        if self.lines > MAX_CHANGED_LINES:
            return f"{self.lines} lines changed"
        return None


@dataclass(frozen=True)
class Change:
    """How the library's modules differ between two releases."""

    modules: tuple[ModuleChange, ...]

    def candidates(self) -> tuple[str, ...]:
        """The modules whose own change is a small fix: the one the newer tests need is found
        by running them with only that module new (mine_release_bugs.try_test)."""
        if self.why_not():
            return ()
        return tuple(m.module for m in self.modules if m.why_not() is None)

    def why_not(self) -> str | None:
        """Why no module of the change can be a task by the strict rule, or None."""
        if not self.modules or len(self.modules) > MAX_MODULES:
            return f"{len(self.modules)} modules changed"
        if len(self.modules) == 1:
            return self.modules[0].why_not()
        if all(m.why_not() for m in self.modules):
            return f"no small change among {len(self.modules)} modules"
        return None

    def single_hunks(self) -> tuple[tuple[str, int], ...]:
        """Each small hunk of each module, (module, hunk index), to be tried alone."""
        return tuple((m.module, i) for m in self.modules for i in m.small_hunks)


def change(before: Mapping[str, str], after: Mapping[str, str]) -> Change:
    """How the Python modules differ from `before` to `after` (texts by workspace path)."""
    modules = []
    for name in sorted(set(before) | set(after)):
        if not name.endswith(".py") or name.rsplit("/", 1)[-1] in {"_version.py", "version.py"}:
            continue
        old, new = before.get(name, ""), after.get(name, "")
        found = [h for h in hunks(old, new) if not h.version_only]
        if found:
            small = tuple(h.index for h in found if h.small) if name in before else ()
            modules.append(ModuleChange(name, len(found), sum(h.lines for h in found), small))
    return Change(tuple(modules))


def hunks(before: str, after: str) -> list[Hunk]:
    """The hunks of the zero-context diff from `before` to `after`."""
    a, b = before.splitlines(), after.splitlines()
    found: list[Hunk] = []
    opcodes = difflib.SequenceMatcher(None, a, b).get_opcodes()
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            continue
        changed = a[i1:i2] + b[j1:j2]
        version_only = all(VERSION_LINE.match(line) for line in changed)
        found.append(Hunk(len(found), i1, i2, j1, j2, version_only))
    return found


def code_hunks(before: str, after: str) -> tuple[int, int]:
    """The hunks of a diff that change more than a version line, and their changed lines."""
    found = [h for h in hunks(before, after) if not h.version_only]
    return len(found), sum(h.lines for h in found)


def apply_hunk(before: str, after: str, index: int) -> str:
    """`before` with only hunk `index` of its diff to `after` applied."""
    found = hunks(before, after)
    if not 0 <= index < len(found):
        raise IndexError(f"the diff has {len(found)} hunks, not one numbered {index}")
    hunk = found[index]
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    head, taken, tail = a[: hunk.old_start], b[hunk.new_start : hunk.new_end], a[hunk.old_end :]
    if head and not head[-1].endswith(("\n", "\r")) and (taken or tail):
        head[-1] += "\n"
    if taken and not taken[-1].endswith(("\n", "\r")) and tail:
        taken[-1] += "\n"
    return "".join(head + taken + tail)
