"""Building files in a temp workspace for the tool tests."""

from __future__ import annotations

from pathlib import Path


def write(root: Path, relative: str, text: str) -> Path:
    """Create `root/relative` (parents included) with exactly `text`, line endings untouched."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return path
