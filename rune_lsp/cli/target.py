"""`PATH[:LINE[-LINE]]`: what `rune-lsp fix` works on, checked before any model is asked.

Everything wrong with the target is a UsageError with one plain sentence: a missing file, a
directory, a binary file, a range outside the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rune_lsp.cli.errors import UsageError
from rune_lsp.lines import line_count
from rune_lsp.tools.documents import DiskDocuments, DocumentSource
from rune_lsp.tools.errors import BinaryFileError, DocumentError
from rune_lsp.tools.paths import display_path
from rune_lsp.tools.scope import repository_root

_SUFFIX = re.compile(r":(?P<start>\d+)(?:-(?P<end>\d+))?$")


@dataclass(frozen=True)
class Target:
    """A file and an optional line range, 0-based like LSP (the user typed them 1-based)."""

    path: Path
    start_line: int | None = None
    end_line: int | None = None


@dataclass(frozen=True)
class OpenedTarget:
    """A target whose file was read: absolute path, its workspace root, and its text."""

    target: Target
    root: Path
    text: str

    @property
    def relative_path(self) -> str:
        return relative_to_root(self.target.path, self.root)


def parse_target(raw: str) -> Target:
    """`src/app.py`, `src/app.py:12` or `src/app.py:12-20`; lines are 1-based and inclusive.

    A file whose own name ends like a range (`notes:3`) is taken as it is when it exists.
    """
    if not raw.strip():
        raise UsageError("no file given: expected PATH[:LINE[-LINE]]")
    match = _SUFFIX.search(raw)
    if match is None or Path(raw).exists():
        return Target(path=Path(raw))
    path = raw[: match.start()]
    if not path:
        raise UsageError(f"no file before the line range in {raw!r}: expected PATH[:LINE[-LINE]]")
    start = int(match.group("start"))
    end = int(match.group("end") or start)
    if start < 1:
        raise UsageError(f"lines are counted from 1, got {start} in {raw!r}")
    if end < start:
        raise UsageError(f"the range ends before it starts ({start}-{end}) in {raw!r}")
    return Target(path=Path(path), start_line=start - 1, end_line=end - 1)


def open_target(target: Target, documents: DocumentSource | None = None) -> OpenedTarget:
    """Resolve and read the target; raises UsageError when it cannot be worked on."""
    source = documents if documents is not None else DiskDocuments()
    path = target.path.expanduser().resolve()
    shown = str(target.path)
    try:
        text = source.read_text(path)
    except BinaryFileError as exc:
        raise UsageError(f"cannot fix {shown}: {exc}; rune only edits text files") from exc
    except DocumentError as exc:
        raise UsageError(f"cannot fix {shown}: {exc}") from exc
    if text is None:
        raise UsageError(f"no such file: {shown}")
    resolved = Target(path=path, start_line=target.start_line, end_line=target.end_line)
    return OpenedTarget(
        target=_fit_range(resolved, text, shown), root=workspace_root(path), text=text
    )


def _fit_range(target: Target, text: str, shown: str) -> Target:
    """A start past the end is an error; an end past it is cut to the last line."""
    if target.start_line is None or target.end_line is None:
        return target
    count = line_count(text)  # as the editor numbers them
    last = max(count, 1) - 1  # an empty file still has a line 1 to point at
    if target.start_line > last:
        lines = "line" if count == 1 else "lines"
        raise UsageError(
            f"line {target.start_line + 1} is past the end of {shown} ({count} {lines})"
        )
    return Target(
        path=target.path, start_line=target.start_line, end_line=min(target.end_line, last)
    )


def workspace_root(path: Path) -> Path:
    """The nearest folder holding `.git` (the project; never the home directory itself), else
    the file's own folder, which tools/scope.py may narrow to single-file mode."""
    return repository_root(path) or path.parent


def relative_to_root(path: str | Path, root: Path) -> str:
    """Workspace-relative when inside the root (as editors show it), else unchanged."""
    return display_path(Path(path), root)
