"""How tool output names files: relative to the workspace root when inside it."""

from __future__ import annotations

from pathlib import Path


def display_path(path: Path, root: Path) -> str:
    """`src/app.py` for a path under the root, `.` for the root, the absolute path otherwise."""
    if path.is_relative_to(root):
        return path.relative_to(root).as_posix()
    return str(path)
